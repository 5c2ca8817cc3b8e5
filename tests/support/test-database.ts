import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';

/** A database of its own for one test file on the run's shared PostgreSQL server. */
export interface TestDatabase {
  /** True when no server could be started and this is not CI: wrap the file's tests in `describe.skipIf(db.skip)`. */
  readonly skip: boolean;
  /** The database's URL; set once beforeAll ran. */
  readonly url: string;
}

/**
 * One connection per URL for the whole worker (a worker runs many files: `isolate: false`), instead of a new
 * connection, and so a new server process, for every database a file creates and drops (≈ 260 a run).
 * Errors of an idle connection (the server stopping at the end of the run, a database dropped under it)
 * are the connection's end, not a test's failure: the pool opens a new one when asked again.
 */
const adminPools = new Map<string, pg.Pool>();

function adminPool(url: string): pg.Pool {
  let pool = adminPools.get(url);
  if (pool === undefined) {
    pool = new pg.Pool({ connectionString: url, max: 1, allowExitOnIdle: true });
    pool.on('error', () => undefined);
    adminPools.set(url, pool);
  }
  return pool;
}

/** Runs one statement as the server's admin (create or drop a test database) on the worker's admin connection. */
export async function adminQuery(adminUrl: string, text: string): Promise<void> {
  await adminPool(adminUrl).query(text);
}

/**
 * Registers beforeAll/afterAll hooks that create a fresh, empty database for the calling test file and
 * drop it afterwards. Without a server: under CI=true beforeAll throws the reason (the tests fail),
 * otherwise `skip` is true.
 */
export function useTestDatabase(): TestDatabase {
  const info = inject('postgres');
  const name = `errand_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const state = { skip: info.adminUrl === null && process.env.CI !== 'true', url: '' };
  beforeAll(async () => {
    if (info.adminUrl === null) {
      if (state.skip) return;
      throw new Error(`PostgreSQL is required under CI=true: ${info.reason}`);
    }
    await adminQuery(info.adminUrl, `create database ${name}`);
    const url = new URL(info.adminUrl);
    url.pathname = `/${name}`;
    state.url = url.toString();
  });
  afterAll(async () => {
    if (info.adminUrl !== null && state.url)
      await adminQuery(info.adminUrl, `drop database if exists ${name} with (force)`);
  });
  return state;
}
