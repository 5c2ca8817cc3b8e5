import { closeDatabase, openDatabase } from '../../src/db/client.js';
import { createSqliteStore } from '../../src/composition/sqlite-store.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { storeContract } from './store-contract.js';
import { privacyStoreContract } from './privacy-store-contract.js';
import { settlementContract } from './settlement-contract.js';

// One process owns the SQLite file: its "peer" is the same store, racing itself.
storeContract('SQLite', async () => {
  const db = openDatabase(':memory:');
  const store = createSqliteStore(db, new FakeClock());
  return { store, peer: store, close: async () => closeDatabase(db) };
});

privacyStoreContract('SQLite', async () => {
  const db = openDatabase(':memory:');
  const store = createSqliteStore(db, new FakeClock());
  return { store, peer: store, close: async () => closeDatabase(db) };
});

settlementContract('SQLite', async () => {
  const db = openDatabase(':memory:');
  const store = createSqliteStore(db, new FakeClock());
  return { store, peer: store, close: async () => closeDatabase(db) };
});
