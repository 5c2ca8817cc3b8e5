import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Absolute path of the built `src/main.js` the process tests start (see `errandBuild` below). */
    errandMain: string;
    /** Absolute path of the stdio MCP fixture server bundled for this run (see `errandBuild` below). */
    stdioFixtureMain: string;
  }
}

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Builds src/ and adapters/ once for the whole run with the project's own build (scripts/build.mjs, as
 * `npm start` does) into `dist-test/run-<pid>/`, inside the project so node_modules and the migration
 * folders resolve as from dist/. A process started from it loads in about half the CPU time of
 * `--import tsx src/main.ts`, which compiled every file again in each of the ~40 processes a run starts.
 * A folder per run keeps two runs in one worktree from deleting each other's build.
 *
 * The stdio MCP fixture server (tests/fixtures/mcp/stdio-fixture-server.ts), which the MCP tests start
 * dozens of times, is bundled into one file there too: it starts in a fifth of the CPU time of
 * `--import tsx` (which loads tsx and compiles the SDK on each start). It is a test double, not Errand.
 */
export async function errandBuild(): Promise<{ main: string; stdioFixture: string; remove: () => void }> {
  const outdir = join(root, 'dist-test', `run-${process.pid}`);
  const stdioFixture = join(outdir, 'fixtures', 'stdio-fixture-server.mjs');
  await Promise.all([
    promisify(execFile)(process.execPath, [join(root, 'scripts/build.mjs'), `--outdir=${relative(root, outdir)}`], {
      cwd: root,
    }),
    build({
      absWorkingDir: root,
      entryPoints: ['tests/fixtures/mcp/stdio-fixture-server.ts'],
      outfile: stdioFixture,
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      logLevel: 'warning',
    }),
  ]);
  return {
    main: join(outdir, 'src', 'main.js'),
    stdioFixture,
    remove: () => rmSync(outdir, { recursive: true, force: true }),
  };
}
