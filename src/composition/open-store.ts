import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { openDatabase } from '../db/client.js';
import { DEFAULT_PG_POOL_SIZE } from '../settings/pg-pool-size.js';
import { DatabaseError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { ProcessIdentity } from '../store/postgres/process-identity.js';
import { createSqliteStore } from './sqlite-store.js';
// The whole Store, every feature's store included: what this file assembles.
import type { ErrandStore as Store } from './errand-store.js';

/** What choosing and opening the store reads from the configuration. */
export type StoreConfig = Pick<Config, 'DATABASE_PATH'> &
  Partial<Pick<Config, 'DATABASE_URL' | 'DATABASE_POOL_SIZE' | 'RUN_LEASE_SECONDS' | 'ERRAND_PROCESS_ID'>>;

/**
 * Opens the store the configuration names: PostgreSQL when DATABASE_URL is set (migrated at start-up;
 * this process claims its owner name there, see process-identity.ts), else the SQLite file at
 * DATABASE_PATH (created and migrated on first use). The store owns its connections: `close()` closes them.
 */
export async function openStore(config: StoreConfig, clock: Clock, logger?: Logger): Promise<Store> {
  if (config.DATABASE_URL === undefined)
    return createSqliteStore(openDatabase(config.DATABASE_PATH), clock, { ownsDb: true });
  const url = config.DATABASE_URL;
  // Loaded only for PostgreSQL: a SQLite process never pays for the pg driver.
  const [{ closePostgres, openPostgres }, { postgresOpenError }, { createPostgresStore }, { claimProcessIdentity }] =
    await Promise.all([
      import('../db/pg-client.js'),
      import('../db/pg-connection-errors.js'),
      import('./pg-store.js'),
      import('../store/postgres/process-identity.js'),
    ]);
  const db = await openPostgres(url, {
    poolSize: config.DATABASE_POOL_SIZE ?? DEFAULT_PG_POOL_SIZE,
    ...(logger ? { logger } : {}),
  });
  let identity: ProcessIdentity;
  try {
    identity = await claimProcessIdentity(url, config.ERRAND_PROCESS_ID);
  } catch (err) {
    await closePostgres(db);
    throw err instanceof DatabaseError ? err : postgresOpenError(url, err);
  }
  const store = createPostgresStore(db, clock, {
    ownership: { processId: identity.processId, leaseMs: (config.RUN_LEASE_SECONDS ?? 30) * 1000 },
    ownsDb: true,
  });
  const closePool = store.close;
  return Object.assign(store, { close: () => closePool().finally(() => identity.release()) });
}
