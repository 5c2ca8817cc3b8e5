import type { Db } from '../../src/db/client.js';
import { isSqliteStore } from '../../src/composition/sqlite-store.js';
import type { ErrandStore as Store } from '../../src/composition/errand-store.js';

/** The SQLite handle behind an app's store, for tests that read or break the file directly. */
export function sqliteDb(store: Store): Db {
  if (!isSqliteStore(store)) throw new Error('this test reads the SQLite database directly');
  return store.db;
}
