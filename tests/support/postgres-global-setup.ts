import type { TestProject } from 'vitest/node';
import { startTestPostgres, type TestPostgresServer } from './postgres-server.js';

/** What every test file learns about the shared server: its admin URL, or why there is none. */
export type TestPostgresInfo = { adminUrl: string; reason: null } | { adminUrl: null; reason: string };

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: TestPostgresInfo;
  }
}

/**
 * Vitest globalSetup: one PostgreSQL server for the whole run, its URL handed to test files through
 * `provide`. When none can be started the reason is printed once here; the PostgreSQL tests then fail
 * with it under CI=true and are skipped otherwise (tests/support/test-database.ts).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let server: TestPostgresServer | null = null;
  try {
    server = await startTestPostgres();
    project.provide('postgres', { adminUrl: server.adminUrl, reason: null });
    process.stderr.write(`PostgreSQL for the tests: ${server.source}, ready in ${server.startMs} ms\n`);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    project.provide('postgres', { adminUrl: null, reason });
    const verdict = process.env.CI === 'true' ? 'they FAIL (CI=true)' : 'they are skipped';
    process.stderr.write(`PostgreSQL tests: ${verdict}. ${reason}\n`);
  }
  return async () => {
    await server?.stop();
  };
}
