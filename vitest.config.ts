import { defineConfig } from 'vitest/config';
import ProcessFilesSpread from './tests/support/test-sequencer.js';

/**
 * One project, three files at a time, every file in a worker that keeps its module cache (isolate: false):
 * a worker imports discord.js, Bolt, openai, drizzle… once for all the files it runs instead of once per
 * file (the imports were most of the in-process CPU time). The files share no module state that matters:
 * the product keeps none beyond caches, and no test mocks modules. The files that start Errand as real
 * processes (tests/support/test-sequencer.ts's PROCESS_TESTS) are in the same project on purpose: vitest
 * hands a worker's warm module cache only to a next file of the same project, so with a project of their
 * own each of them cost a worker its imports. The sequencer spreads them over the first half of the run.
 * Three at a time: the process files mostly wait. On a machine busy with other work the process tests can
 * miss their waits: `VITEST_MAX_WORKERS=2 npm test` there.
 */
export default defineConfig({
  test: {
    // One PostgreSQL server per run for the tests that need one (each file gets its own database).
    // Errand built once (scripts/build.mjs) for the tests that start it as a process.
    // First, so that everything after it (the server's cluster too) makes its temporary files in the run's own directory.
    globalSetup: [
      'tests/support/temp-dir-global-setup.ts',
      'tests/support/postgres-global-setup.ts',
      'tests/support/build-global-setup.ts',
    ],
    include: ['tests/**/*.test.ts'],
    // The PostgreSQL store refuses a root-store call from inside an open transaction (pg-store.ts; off in production).
    env: { ERRAND_CHECK_TX_CONTEXT: '1' },
    isolate: false,
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    maxWorkers: 3,
    reporters: ['default'],
    sequence: { sequencer: ProcessFilesSpread },
  },
});
