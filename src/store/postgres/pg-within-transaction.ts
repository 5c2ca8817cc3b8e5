import { PgTransaction } from 'drizzle-orm/pg-core';
import type { PgExecutor } from './pg-executor.js';

/** Whether an executor is an open transaction (drizzle's), not the pool. */
export function isTransaction(db: PgExecutor): boolean {
  return (db as unknown) instanceof PgTransaction;
}

/**
 * Runs `work` in a transaction: its own on the pool, or, when `db` is already a transaction, in that one
 * without a savepoint. A savepoint costs two round trips and buys only a partial rollback that no caller
 * uses: a failed statement aborts the whole PostgreSQL transaction anyway, and the caller's rolls back.
 */
export function withinTransaction<T>(db: PgExecutor, work: (t: PgExecutor) => Promise<T>): Promise<T> {
  return isTransaction(db) ? work(db) : db.transaction(work);
}
