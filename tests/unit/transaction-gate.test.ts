import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeDatabase, openDatabase, type Db } from '../../src/db/client.js';
import { createSqliteStore, type SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { FakeClock } from '../fakes/fake-clock.js';

let db: Db;
let store: SqliteStore;
const ref = (thread: string) => ({ platform: 'memory', workspace: 'W', channel: 'C', thread });
const count = () => (db.$client.prepare('select count(*) as n from conversations').get() as { n: number }).n;

/** A promise and the function that settles it, to hold a transaction open at a chosen point. */
function latch(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((r) => (open = r));
  return { wait, open };
}

beforeEach(() => {
  db = openDatabase(':memory:');
  store = createSqliteStore(db, new FakeClock());
});
afterEach(() => closeDatabase(db));

describe('SQLite transactions across awaits', () => {
  it('makes a write from outside wait until the open transaction ends', async () => {
    const hold = latch();
    const order: string[] = [];
    const tx = store.atomically(async (t) => {
      await t.conversations.ensure(ref('inside'));
      order.push('inside written');
      await hold.wait;
      order.push('committing');
    });
    await Promise.resolve();
    const outside = store.conversations.ensure(ref('outside')).then(() => order.push('outside written'));
    await new Promise((r) => setTimeout(r, 10));
    expect(order).toEqual(['inside written']);
    hold.open();
    await Promise.all([tx, outside]);
    expect(order).toEqual(['inside written', 'committing', 'outside written']);
    expect(count()).toBe(2);
  });

  it('rolls back only the transaction’s own writes, and rethrows its error', async () => {
    const hold = latch();
    const failing = store.atomically(async (t) => {
      await t.conversations.ensure(ref('doomed'));
      await hold.wait;
      throw new Error('changed my mind');
    });
    await Promise.resolve();
    const outside = store.conversations.ensure(ref('kept'));
    hold.open();
    await expect(failing).rejects.toThrow('changed my mind');
    await outside;
    expect(await store.conversations.get('memory:W:C:doomed')).toBeNull();
    expect(await store.conversations.get('memory:W:C:kept')).not.toBeNull();
  });

  it('runs a nested atomically inside the transaction already open', async () => {
    await expect(
      store.atomically(async (t) => {
        await t.conversations.ensure(ref('outer'));
        await t.atomically(async (inner) => {
          await inner.conversations.ensure(ref('inner'));
        });
        throw new Error('undo both');
      }),
    ).rejects.toThrow('undo both');
    expect(count()).toBe(0);
    await store.atomically(async (t) => t.atomically(async (inner) => void (await inner.conversations.ensure(ref('nested')))));
    expect(count()).toBe(1);
  });

  it('runs transactions one after another, in the order they were asked for', async () => {
    const order: number[] = [];
    await Promise.all(
      [1, 2, 3].map((n) =>
        store.atomically(async (t) => {
          order.push(n);
          await t.conversations.ensure(ref(`t${n}`));
          await new Promise((r) => setTimeout(r, 3));
          order.push(n);
        }),
      ),
    );
    expect(order).toEqual([1, 1, 2, 2, 3, 3]);
  });

  it('runs commit callbacks only after the commit, and never after a rollback', async () => {
    const seen: string[] = [];
    await store.atomically(async (t) => {
      await t.conversations.ensure(ref('a'));
      t.afterCommit(() => seen.push(`committed with ${count()}`));
      expect(seen).toEqual([]);
    });
    await store
      .atomically(async (t) => {
        t.afterCommit(() => seen.push('rolled back'));
        throw new Error('no');
      })
      .catch(() => undefined);
    store.afterCommit(() => seen.push('outside: at once'));
    expect(seen).toEqual(['committed with 1', 'outside: at once']);
  });
});
