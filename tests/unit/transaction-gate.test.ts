import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as realDelay } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { closeDatabase, openDatabase, type Db } from '../../src/db/client.js';
import { createSqliteStore, type SqliteStore } from '../../src/composition/sqlite-store.js';
import { TransactionGate } from '../../src/store/sqlite/transaction-gate.js';
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
    await store.atomically(async (t) =>
      t.atomically(async (inner) => void (await inner.conversations.ensure(ref('nested')))),
    );
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

describe('SQLite commit groups', () => {
  /** The gate on this test's connection, its statements recorded, and its commits written only when the test ends a turn. */
  function gateWithTurns(failCommit = false) {
    const c = db.$client;
    const execs: string[] = [];
    const connection = {
      exec(sql: string) {
        execs.push(sql);
        if (failCommit && sql === 'COMMIT') throw new Error('disk I/O error');
        return c.exec(sql);
      },
      get inTransaction() {
        return c.inTransaction;
      },
    };
    let due: (() => void)[] = [];
    const gate = new TransactionGate(connection, (commit) => due.push(commit));
    const endTurn = () => {
      const now = due;
      due = [];
      for (const commit of now) commit();
    };
    const insert = (thread: string) => () =>
      c
        .prepare(
          "insert into conversations (id, platform, workspace, channel, thread, created_at, updated_at) values (?, 'memory', 'W', 'C', ?, 0, 0)",
        )
        .run(`memory:W:C:${thread}`, thread);
    return { gate, execs, endTurn, insert };
  }
  const settledYet = (p: Promise<unknown>) =>
    Promise.race([
      p.then(
        () => true,
        () => true,
      ),
      new Promise((r) => setTimeout(() => r(false), 5)),
    ]);

  it('writes the transactions and calls of one turn with one COMMIT, and settles none of them before it', async () => {
    const { gate, execs, endTurn, insert } = gateWithTurns();
    const a = gate.atomically(async () => void insert('a')());
    const b = gate.atomically(async () => void insert('b')());
    await new Promise((r) => setTimeout(r, 5));
    const c = gate.call(insert('c'));
    expect(await settledYet(Promise.race([a, b, c]))).toBe(false);
    expect(execs.filter((s) => s === 'COMMIT')).toEqual([]);
    endTurn();
    await Promise.all([a, b, c]);
    expect(execs.filter((s) => s === 'BEGIN IMMEDIATE' || s === 'COMMIT')).toEqual(['BEGIN IMMEDIATE', 'COMMIT']);
    expect(count()).toBe(3);
  });

  it('undoes only the failing transaction’s writes; the rest of its group commits', async () => {
    const { gate, endTurn, insert } = gateWithTurns();
    const kept = gate.atomically(async () => void insert('kept')());
    const doomed = gate.atomically(async () => {
      insert('doomed')();
      throw new Error('changed my mind');
    });
    const failingCall = gate.call(() => {
      insert('half')();
      insert('kept')(); // a duplicate key: the call fails after one write
    });
    await expect(doomed).rejects.toThrow('changed my mind');
    await expect(failingCall).rejects.toThrow(/UNIQUE/);
    endTurn();
    await kept;
    const ids = (
      db.$client.prepare('select thread from conversations order by thread').all() as { thread: string }[]
    ).map((r) => r.thread);
    expect(ids).toEqual(['kept']);
  });

  it('rejects every participant when the commit fails, and commits nothing of theirs', async () => {
    const { gate, endTurn, insert } = gateWithTurns(true);
    const a = gate.atomically(async () => void insert('a')());
    const b = gate.call(insert('b'));
    const afterCommit: string[] = [];
    const c = gate.atomically(async () => gate.afterCommit(() => afterCommit.push('ran')));
    await new Promise((r) => setTimeout(r, 5));
    endTurn();
    for (const p of [a, b, c]) await expect(p).rejects.toThrow('disk I/O error');
    expect(afterCommit).toEqual([]);
    expect(db.$client.inTransaction).toBe(false);
    expect(count()).toBe(0);
  });

  it('runs a call at once, on its own, when nothing is uncommitted', async () => {
    const { gate, execs, insert } = gateWithTurns();
    const done = gate.call(insert('quiet'));
    expect(count()).toBe(1);
    expect(db.$client.inTransaction).toBe(false);
    await done;
    expect(execs).toEqual([]);
  });

  it('commits while a test fakes timers, even with the gate loaded under the fakes', async () => {
    vi.useFakeTimers({ toFake: ['setImmediate', 'setTimeout', 'setInterval', 'Date'] });
    try {
      vi.resetModules();
      const { createSqliteStore: loadedUnderFakes } = await import('../../src/composition/sqlite-store.js');
      const faked = loadedUnderFakes(db, new FakeClock());
      const tx = faked.atomically(async (t) => void (await t.conversations.ensure(ref('under fake timers'))));
      const outcome = await Promise.race([tx.then(() => 'committed'), realDelay(2000).then(() => 'still waiting')]);
      expect(outcome).toBe('committed');
      expect(count()).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('commits the open group before closing: nothing a caller was promised is rolled back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'errand-gate-'));
    const path = join(dir, 'e.db');
    const own = createSqliteStore(openDatabase(path), new FakeClock(), { ownsDb: true });
    const written = own.conversations.ensure(ref('late'));
    const tx = own.atomically(async (t) => void (await t.conversations.ensure(ref('in a group'))));
    await own.close();
    await Promise.all([written, tx]);
    const again = openDatabase(path);
    expect((again.$client.prepare('select count(*) as n from conversations').get() as { n: number }).n).toBe(2);
    closeDatabase(again);
    rmSync(dir, { recursive: true, force: true });
  });
});
