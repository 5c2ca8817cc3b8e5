/**
 * Test files that start Errand as real processes (several at once, with their own PostgreSQL connections and
 * leases): restarts under SIGKILL, scale-out and its chaos soak, start-up checks, the web console in Chromium, piped
 * console input. They are the longest files and mostly wait, so they run apart from `npm test`, in
 * `npm run test:processes` (vitest.processes.config.ts); CI runs both. New ones are named to match.
 */
export const PROCESS_TESTS = [
  'tests/e2e/scaleout-*.test.ts',
  'tests/e2e/*-restarts.test.ts',
  'tests/e2e/process-*.test.ts',
  'tests/e2e/console-piped-input.test.ts',
];
