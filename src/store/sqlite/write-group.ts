import type Database from 'better-sqlite3';

/**
 * Runs a group of statements atomically: inside the transaction that already holds the connection
 * (the gate's), as part of it — its rollback covers the group, and no savepoint is paid for on the
 * message path — or, called on its own, in a transaction of its own.
 */
export function writeGroup(sqlite: Database.Database): <R>(group: () => R) => R {
  const own = sqlite.transaction((group: () => unknown) => group());
  return <R>(group: () => R): R => (sqlite.inTransaction ? group() : (own(group) as R));
}
