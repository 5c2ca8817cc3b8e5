import type { TestProject } from 'vitest/node';
import { closePostgres, openPostgres } from '../../src/db/pg-client.js';
import { startTestPostgres, type TestPostgresServer } from './postgres-server.js';
import { adminQuery } from './test-database.js';

/**
 * What every test file learns about the shared server: its admin URL, or why there is none, and the name of a
 * database with Errand's migrations applied that a test may copy (`create database … template …`), or null.
 */
export type TestPostgresInfo =
  | { adminUrl: string; reason: null; migratedTemplate: string | null }
  | { adminUrl: null; reason: string; migratedTemplate: null };

/** The database copied for tests that want Errand's schema in place (tests/support/store-kinds.ts). */
const MIGRATED_TEMPLATE = 'errand_migrated_template';

/**
 * Creates the migrated template: Errand's own migrations, applied once per run instead of once per test
 * (about 0.3 s each). Null when that fails: the tests then start from empty databases and migrate them
 * themselves, where the failure shows.
 */
async function migratedTemplate(adminUrl: string): Promise<string | null> {
  try {
    await adminQuery(adminUrl, `create database ${MIGRATED_TEMPLATE}`);
    const url = new URL(adminUrl);
    url.pathname = `/${MIGRATED_TEMPLATE}`;
    // Closed before any copy: PostgreSQL copies only a template nobody is connected to.
    await closePostgres(await openPostgres(url.toString(), { poolSize: 1 }));
    return MIGRATED_TEMPLATE;
  } catch (err) {
    process.stderr.write(
      `PostgreSQL migrated template not made (tests migrate their own databases): ${err instanceof Error ? err.message : String(err)}\n`,
    );
    return null;
  }
}

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
    project.provide('postgres', {
      adminUrl: server.adminUrl,
      reason: null,
      migratedTemplate: await migratedTemplate(server.adminUrl),
    });
    process.stderr.write(`PostgreSQL for the tests: ${server.source}, ready in ${server.startMs} ms\n`);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    project.provide('postgres', { adminUrl: null, reason, migratedTemplate: null });
    const verdict = process.env.CI === 'true' ? 'they FAIL (CI=true)' : 'they are skipped';
    process.stderr.write(`PostgreSQL tests: ${verdict}. ${reason}\n`);
  }
  return async () => {
    await server?.stop();
  };
}
