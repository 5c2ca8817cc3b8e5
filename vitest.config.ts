import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // One PostgreSQL server per run for the tests that need one (each file gets its own database).
    // Errand built once (scripts/build.mjs) for the tests that start it as a process.
    globalSetup: ['tests/support/postgres-global-setup.ts', 'tests/support/build-global-setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    reporters: ['default'],
  },
});
