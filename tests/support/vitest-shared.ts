import type { ViteUserConfig } from 'vitest/config';

/**
 * What both test runs share (`npm test`: vitest.config.ts; `npm run test:processes`: vitest.processes.config.ts).
 * Three files at a time, every file in a worker that keeps its module cache (isolate: false): a worker imports
 * discord.js, Bolt, openai, drizzle… once for all the files it runs instead of once per file (the imports were most
 * of the in-process CPU time). The files share no module state that matters: the product keeps none beyond caches,
 * and no test mocks modules. On a machine busy with other work the process tests can miss their waits:
 * `VITEST_MAX_WORKERS=2` there.
 */
export const sharedTestOptions = {
  // One PostgreSQL server per run for the tests that need one (each file gets its own database).
  // Errand and the stdio MCP fixture built once (scripts/build.mjs) for the tests that start them as processes.
  // First, so that everything after it (the server's cluster too) makes its temporary files in the run's own directory.
  globalSetup: [
    'tests/support/temp-dir-global-setup.ts',
    'tests/support/postgres-global-setup.ts',
    'tests/support/build-global-setup.ts',
  ],
  // The PostgreSQL store refuses a root-store call from inside an open transaction (pg-store.ts; off in production).
  env: { ERRAND_CHECK_TX_CONTEXT: '1' },
  isolate: false,
  testTimeout: 20_000,
  hookTimeout: 20_000,
  pool: 'forks',
  maxWorkers: 3,
  reporters: ['default'],
} satisfies NonNullable<ViteUserConfig['test']>;
