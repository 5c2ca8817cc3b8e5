import { randomBytes } from 'node:crypto';
import { afterAll, inject } from 'vitest';
import { adminQuery } from './test-database.js';

/** The two databases the Store runs on. */
export type StoreKind = 'sqlite' | 'postgres';

export interface StoreKinds {
  /** The kinds to run a suite on: both, or SQLite alone when no PostgreSQL server could be started outside CI. */
  readonly kinds: readonly StoreKind[];
  /**
   * The environment that makes Errand use `kind` on a fresh database: nothing for SQLite (each harness has
   * its own file), otherwise the DATABASE_URL of a new PostgreSQL database (dropped after the file), copied
   * from the run's migrated template when there is one (Errand finds its migrations applied) or else empty.
   */
  env(kind: StoreKind): Promise<Record<string, string>>;
}

/**
 * For test files that run their suite on both stores: `describe.each(stores.kinds)('… (%s)', (kind) => …)`
 * and `startHarness({ ...(await stores.env(kind)), … })`. Without a server, under CI=true the PostgreSQL
 * suites run and fail with the reason; otherwise only SQLite's run.
 */
export function useStoreKinds(): StoreKinds {
  const info = inject('postgres');
  const withPostgres = info.adminUrl !== null || process.env.CI === 'true';
  const created: string[] = [];
  afterAll(async () => {
    if (info.adminUrl === null) return;
    for (const name of created) await adminQuery(info.adminUrl, `drop database if exists ${name} with (force)`);
  });
  return {
    kinds: withPostgres ? ['sqlite', 'postgres'] : ['sqlite'],
    async env(kind): Promise<Record<string, string>> {
      if (kind === 'sqlite') return {};
      if (info.adminUrl === null) throw new Error(`PostgreSQL is required under CI=true: ${info.reason}`);
      const name = `errand_test_${process.pid}_${randomBytes(4).toString('hex')}`;
      await adminQuery(
        info.adminUrl,
        `create database ${name}${info.migratedTemplate ? ` template ${info.migratedTemplate}` : ''}`,
      );
      created.push(name);
      const url = new URL(info.adminUrl);
      url.pathname = `/${name}`;
      return { DATABASE_URL: url.toString() };
    },
  };
}
