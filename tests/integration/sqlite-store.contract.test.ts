import { closeDatabase, openDatabase } from '../../src/db/client.js';
import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { storeContract } from './store-contract.js';

storeContract('SQLite', async () => {
  const db = openDatabase(':memory:');
  return { store: createSqliteStore(db, new FakeClock()), close: async () => closeDatabase(db) };
});
