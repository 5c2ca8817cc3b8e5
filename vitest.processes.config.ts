import { defineConfig } from 'vitest/config';
import { PROCESS_TESTS } from './tests/support/process-tests.js';
import { sharedTestOptions } from './tests/support/vitest-shared.js';

/**
 * `npm run test:processes`: the files that start Errand as real processes (PROCESS_TESTS), from one build made at
 * the start of the run, three at a time (they mostly wait on start-up, leases and sockets). CI (.ci/run) runs them
 * after `npm test`.
 */
export default defineConfig({
  test: { ...sharedTestOptions, include: [...PROCESS_TESTS] },
});
