import { configDefaults, defineConfig } from 'vitest/config';
import { PROCESS_TESTS } from './tests/support/process-tests.js';
import { sharedTestOptions } from './tests/support/vitest-shared.js';

/**
 * `npm test`: unit, integration and the in-process end-to-end tests (the real Bolt, discord.js and openai against
 * the fakes), within three minutes on two cores. The files that start Errand as real processes (PROCESS_TESTS:
 * restarts under SIGKILL, scale-out and its chaos soak, start-up, the web console in Chromium) are the longest and
 * run apart, `npm run test:processes` (vitest.processes.config.ts); CI (.ci/run) runs both.
 */
export default defineConfig({
  test: {
    ...sharedTestOptions,
    include: ['tests/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...PROCESS_TESTS],
  },
});
