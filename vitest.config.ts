import { defineConfig } from 'vitest/config';
import ProcessFilesSpread, { PROCESSES_PROJECT } from './tests/support/test-sequencer.js';

/**
 * Tests that start Errand as real processes (several at once, with their own PostgreSQL connections and
 * leases). They run beside the in-process files, spread over the run by tests/support/test-sequencer.ts,
 * instead of one at a time after them. Three files at a time: the process files mostly wait, so on a quiet
 * 2-core machine (CI) three take the run from ~226 s to ~170 s. On a machine busy with other work the
 * process tests can miss their waits: `VITEST_MAX_WORKERS=2 npm test` there.
 */
const PROCESS_TESTS = [
  'tests/e2e/scaleout-*.test.ts',
  'tests/e2e/*-restarts.test.ts',
  'tests/e2e/process-*.test.ts',
  'tests/e2e/console-piped-input.test.ts',
];

/** What every project shares. Not through `extends`: that would give each project the global setup too. */
const common = { testTimeout: 20_000, hookTimeout: 20_000, pool: 'forks', maxWorkers: 3 } as const;

export default defineConfig({
  test: {
    // One PostgreSQL server per run for the tests that need one (each file gets its own database).
    // Errand built once (scripts/build.mjs) for the tests that start it as a process. Only the root runs
    // them (vitest runs a project's own globalSetup besides the root's); the projects inherit what they provide.
    globalSetup: ['tests/support/postgres-global-setup.ts', 'tests/support/build-global-setup.ts'],
    ...common,
    reporters: ['default'],
    sequence: { sequencer: ProcessFilesSpread },
    projects: [
      {
        // isolate: false — a worker imports discord.js, Bolt, openai, drizzle… once for all the files it runs
        // instead of once per file (the imports were most of the in-process CPU time). The files share
        // no module state that matters: the product keeps none beyond caches, and no test mocks modules.
        test: { ...common, name: 'in-process', include: ['tests/**/*.test.ts'], exclude: PROCESS_TESTS, isolate: false },
      },
      {
        // isolate: false too: these files import the fakes, pg and the kits once per worker; they keep no state
        // in shared modules (each file's fakes and processes are its own) and mock nothing.
        test: { ...common, name: PROCESSES_PROJECT, include: PROCESS_TESTS, isolate: false },
      },
    ],
  },
});
