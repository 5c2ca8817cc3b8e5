import type { Db } from '../../db/client.js';

/**
 * Checks that the database accepts writes: takes the write lock, rewrites the header's
 * `user_version` with its own value, and rolls back. A read-only file, a locked database
 * (past the busy timeout) or a closed connection fail here as they would for the next run.
 * Nothing is committed, so the check costs no disk write. Returns null when writable, else why not.
 */
export function databaseWriteProblem(db: Db): string | null {
  const sqlite = db.$client;
  if (!sqlite.open) return 'the database connection is closed';
  // better-sqlite3 is synchronous: a transaction is only open here if a caller is inside one.
  if (sqlite.inTransaction) return null;
  try {
    sqlite.exec('BEGIN IMMEDIATE');
    try {
      const version = Number(sqlite.pragma('user_version', { simple: true }));
      sqlite.pragma(`user_version = ${Number.isInteger(version) ? version : 0}`);
    } finally {
      sqlite.exec('ROLLBACK');
    }
    return null;
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    return `the database cannot be written (${typeof code === 'string' ? `${code}: ` : ''}${err instanceof Error ? err.message : String(err)})`;
  }
}
