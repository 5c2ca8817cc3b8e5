import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import type { Logger } from '../logger.js';
import { advisoryLockKey } from './advisory-lock-key.js';
import { findMigrationsFolder } from './migrations-folder.js';
import { checkDatabaseUrl, postgresOpenError } from './pg-connection-errors.js';
import { nameStatements } from './pg-named-statements.js';
import { deferredWritesOf, deferWritesOnPool, type DeferTimers } from './pg-deferred-writes.js';
import { pipelineBegin } from './pg-pipelined-begin.js';
import { watchPoolUse } from './pg-pool-use.js';
import { DEFAULT_PG_POOL_SIZE } from '../settings/pg-pool-size.js';
import * as pgSchema from './pg-schema.js';

export type PgDb = NodePgDatabase<typeof pgSchema> & { $client: pg.Pool };

/** Where the committed PostgreSQL migrations live (generated with drizzle.pg.config.ts). */
export const PG_MIGRATIONS_DIR = findMigrationsFolder('drizzle-pg');

/** How long a pooled connection may stay unused before it is closed. */
const IDLE_CONNECTION_MS = 5 * 60_000;

/** Held while one process migrates, so processes starting together apply each migration once. */
const MIGRATION_LOCK = advisoryLockKey('migrations');

export interface OpenPostgresOptions {
  migrationsDir?: string;
  /** Connections this pool may hold (default DEFAULT_PG_POOL_SIZE: see there why so few). */
  poolSize?: number;
  /** Shown in pg_stat_activity, so an operator sees which process holds what (default `errand`). */
  applicationName?: string;
  /** How long a connection attempt may take before it fails (default 10 000 ms). */
  connectTimeoutMs?: number;
  /** Where errors of idle pooled connections go; without a listener node-postgres would crash the process. */
  logger?: Logger;
  /** The timers a deferred write's window is kept with (pg-deferred-writes.ts; default the system clock). */
  clock?: DeferTimers;
}

/**
 * Connects to PostgreSQL and applies pending migrations under an advisory lock, so several Errand
 * processes may start at once against one database. Throws DatabaseError naming DATABASE_URL (password
 * masked) when the URL is malformed, the server is unreachable, the login is refused or migrating fails.
 */
export async function openPostgres(url: string, options: OpenPostgresOptions = {}): Promise<PgDb> {
  checkDatabaseUrl(url);
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? DEFAULT_PG_POOL_SIZE,
    application_name: options.applicationName ?? 'errand',
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    // A new connection costs both sides a fork and a SCRAM login (milliseconds of CPU each); pg's default of 10 s
    // closed the pool's connections between bursts of work and opened them again at the next.
    idleTimeoutMillis: IDLE_CONNECTION_MS,
    keepAlive: true,
    // Queries are written as they are issued (each with its own Sync) and answered in order: a transaction's
    // `begin` goes out with its first statement (pg-pipelined-begin.ts). A pooled connection serves one caller
    // at a time, which awaits its statements, so nothing else changes.
    pipeline: true,
  });
  watchPoolUse(pool);
  deferWritesOnPool(pool, undefined, options.clock);
  pool.on('error', (err) =>
    options.logger?.warn({ err }, 'an idle PostgreSQL connection failed; the pool replaces it'),
  );
  pool.on('connect', (client) => {
    nameStatements(client);
    pipelineBegin(client);
  });
  try {
    await migrateUnderLock(pool, options.migrationsDir ?? PG_MIGRATIONS_DIR);
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw postgresOpenError(url, err);
  }
  return drizzle(pool, { schema: pgSchema });
}

async function migrateUnderLock(pool: pg.Pool, migrationsFolder: string): Promise<void> {
  const client = await pool.connect();
  let failure: Error | undefined;
  try {
    await client.query('select pg_advisory_lock($1::bigint)', [MIGRATION_LOCK]);
    try {
      await migrate(drizzle(client), { migrationsFolder });
    } finally {
      await client.query('select pg_advisory_unlock($1::bigint)', [MIGRATION_LOCK]);
    }
  } catch (err) {
    failure = err instanceof Error ? err : new Error(String(err));
    throw err;
  } finally {
    // A connection that failed mid-way is destroyed, not pooled: its session (and any lock) ends with it.
    client.release(failure);
  }
}

/** Closes every pooled connection; safe to call twice. */
export async function closePostgres(db: PgDb): Promise<void> {
  if (db.$client.ended) return;
  // What waits for company goes out first (a preview's message id, pg-deferred-writes.ts).
  await deferredWritesOf(db.$client)?.flush();
  await db.$client.end();
}
