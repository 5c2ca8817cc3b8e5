import { sql } from 'drizzle-orm';
import type { PgDb } from '../../db/pg-client.js';

/**
 * Checks that the database accepts writes now: a transaction that takes a write-ish lock on nothing
 * durable (`txid_current()` assigns a transaction id, which a read-only standby or a full disk refuses)
 * and rolls back. Returns null when writable, else why not.
 */
export async function pgWriteProblem(db: PgDb): Promise<string | null> {
  if (db.$client.ended) return 'the database connection pool is closed';
  const rollback = new Error('rollback');
  try {
    await db.transaction(async (tx) => {
      await tx.execute(sql`select txid_current()`);
      throw rollback;
    });
    return null;
  } catch (err) {
    if (err === rollback) return null;
    const code = (err as { code?: unknown }).code;
    return `the database cannot be written (${typeof code === 'string' ? `${code}: ` : ''}${err instanceof Error ? err.message : String(err)})`;
  }
}
