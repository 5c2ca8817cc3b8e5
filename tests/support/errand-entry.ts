import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';
// Type only: the ProvidedContext entries; errand-build.ts loads esbuild, which the test workers need not.
import type {} from './errand-build.js';

/** The project root: the working directory of a started Errand process, as for `npm start`. */
export const projectRoot = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The arguments for `node` that start Errand's real entry point: `src/main.ts` as built once for this run
 * by scripts/build.mjs (the build `npm start` runs too), see tests/support/errand-build.ts.
 */
export function errandEntryArgs(): string[] {
  return [inject('errandMain')];
}

/**
 * The arguments for `node` that start the stdio MCP fixture server (tests/fixtures/mcp/stdio-fixture-server.ts),
 * bundled once for this run (tests/support/errand-build.ts). Its path still names `stdio-fixture-server`.
 */
export function stdioFixtureArgs(): string[] {
  return [inject('stdioFixtureMain')];
}
