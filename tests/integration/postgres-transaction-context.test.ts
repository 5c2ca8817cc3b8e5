import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closePostgres, openPostgres, type PgDb } from '../../src/db/pg-client.js';
import { createPostgresStore } from '../../src/composition/pg-store.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { useTestDatabase } from '../support/test-database.js';

/*
 * Issue 40, fourth round: the PostgreSQL store carries a transaction in the `tx` handed to its body, not in an
 * AsyncLocalStorage (whose promise hook cost every promise of the process while a transaction was open). The
 * root store goes to the pool; test runs check that no transaction's flow calls it.
 */

const database = useTestDatabase();
let db: PgDb;
const clock = new FakeClock(1_000);
let seq = 0;
const thread = () => ({ platform: 'memory', workspace: 'W1', channel: 'C1', thread: `T${++seq}` });

beforeAll(async () => {
  if (database.skip) return;
  db = await openPostgres(database.url, { poolSize: 3 });
});
afterAll(async () => {
  if (db) await closePostgres(db);
});

describe.skipIf(database.skip)('the PostgreSQL store’s transactions, carried in `tx`', () => {
  it('runs a root-store call made inside a transaction on the pool, outside it (production: no AsyncLocalStorage)', async () => {
    const store = createPostgresStore(db, clock, { checkTransactionContext: false });
    const seen = await store.atomically(async (tx) => {
      const id = await tx.conversations.ensure(thread());
      return { inTx: await tx.conversations.get(id), onRoot: await store.conversations.get(id), id };
    });
    expect(seen.inTx?.id).toBe(seen.id);
    // Not yet committed when the root store read it: the pool's connection did not see the row.
    expect(seen.onRoot).toBeNull();
    expect((await store.conversations.get(seen.id))?.id).toBe(seen.id);
  });

  it('refuses, when checking, a root-store statement, afterCommit or atomically from inside a transaction, with what to use instead', async () => {
    const store = createPostgresStore(db, clock, { checkTransactionContext: true });
    const committed: string[] = [];
    const id = await store.atomically(async (tx) => {
      const id = await tx.conversations.ensure(thread());
      await expect(store.conversations.get(id)).rejects.toThrow(
        /conversations\.get was called on the root store inside an open transaction.*use the transaction's store/,
      );
      expect(() => store.afterCommit(() => committed.push('root'))).toThrow(/afterCommit was called on the root store/);
      await expect(store.atomically(async () => undefined)).rejects.toThrow(/atomically was called on the root store/);
      // A synchronous helper is not a statement; a nested transaction on `tx` joins it.
      expect(store.conversations.refOf(id)).toMatchObject({ platform: 'memory' });
      await tx.atomically(async (inner) => inner.afterCommit(() => committed.push('tx')));
      expect(committed).toEqual([]);
      return id;
    });
    expect(committed).toEqual(['tx']);
    // Once the transaction has ended, the same flow uses the root store again.
    expect((await store.conversations.get(id))?.id).toBe(id);
    store.afterCommit(() => committed.push('now'));
    expect(committed).toEqual(['tx', 'now']);
  });
});
