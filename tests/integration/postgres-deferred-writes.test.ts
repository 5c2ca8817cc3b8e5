import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closePostgres, openPostgres } from '../../src/db/pg-client.js';
import { deferredWritesOf, type DeferTimers } from '../../src/db/pg-deferred-writes.js';
import { deferrableText } from '../../src/store/postgres/pg-prepared.js';
import { drizzle } from 'drizzle-orm/node-postgres';
import { useTestDatabase } from '../support/test-database.js';

/*
 * Issue 40: a write that need not go out at once (a preview's message id) waits for the process's next statement
 * and travels with it on the same connection, or goes alone once its window passed; nothing waiting is lost.
 */

const database = useTestDatabase();
let observer: pg.Pool;

beforeAll(async () => {
  if (database.skip) return;
  observer = new pg.Pool({ connectionString: database.url, max: 1 });
  // Its idle connection ends when the file's database is dropped: that is not a test's failure.
  observer.on('error', () => undefined);
  await observer.query('create table notes (id integer primary key, body text, pid integer)');
  await observer.query(`insert into notes select g, null, null from generate_series(1, 20) g`);
});
afterAll(async () => {
  await observer?.end();
});

const SET = 'update notes set body = $2::text, pid = pg_backend_pid() where id = $1::integer';
const bodyOf = async (id: number) =>
  (await observer.query<{ body: string | null; pid: number | null }>('select body, pid from notes where id = $1', [id]))
    .rows[0]!;

/** Timers that fire only when the test says so. */
function manualTimers(): DeferTimers & { fire(): void; pending(): number } {
  let fn: (() => void) | null = null;
  return {
    setTimer: (f) => ((fn = f), 'handle'),
    clearTimer: () => void (fn = null),
    fire: () => {
      const f = fn;
      fn = null;
      f?.();
    },
    pending: () => (fn ? 1 : 0),
  };
}

/** The pool openPostgres makes (pipelined, statements named), with its deferred writes on manual timers. */
async function pipelinedPool(timers: DeferTimers) {
  const db = await openPostgres(database.url, { poolSize: 2, clock: timers });
  const deferred = deferredWritesOf(db.$client);
  if (!deferred) throw new Error('openPostgres made a pool without deferred writes');
  return { pool: db.$client, deferred };
}

describe.skipIf(database.skip)('writes that wait for company (issue 40)', () => {
  it("goes out with the pool's next statement, on that statement's connection and before it, without its window passing", async () => {
    const timers = manualTimers();
    const { pool, deferred } = await pipelinedPool(timers);
    try {
      const written = deferred.defer(SET, [1, 'first']);
      expect((await bodyOf(1)).body, 'nothing sent before a statement goes out').toBeNull();
      const { rows } = await pool.query<{ pid: number; body: string }>(
        'select pg_backend_pid() as pid, (select body from notes where id = 1) as body',
      );
      await written;
      expect(rows[0]!.body, "the caller's statement already sees the write").toBe('first');
      expect((await bodyOf(1)).pid, 'written on the connection the statement went on').toBe(rows[0]!.pid);
      expect(timers.pending(), 'the window was closed with the write').toBe(0);
    } finally {
      await pool.end();
    }
  });

  it('goes out with the next transaction too, as a statement of its own ahead of begin (a rollback keeps it)', async () => {
    const { pool, deferred } = await pipelinedPool(manualTimers());
    try {
      const written = deferred.defer(SET, [2, 'before-tx']);
      const client = await pool.connect();
      try {
        await client.query('begin');
        await client.query(`update notes set body = 'inside' where id = 3`);
        await client.query('rollback');
      } finally {
        client.release();
      }
      await written;
      expect((await bodyOf(2)).body).toBe('before-tx');
      expect((await bodyOf(3)).body).toBeNull();
    } finally {
      await pool.end();
    }
  });

  it('goes out alone, every waiting write together, when nothing else does within its window', async () => {
    const timers = manualTimers();
    const { pool, deferred } = await pipelinedPool(timers);
    try {
      const both = Promise.all([deferred.defer(SET, [4, 'alone-a']), deferred.defer(SET, [5, 'alone-b'])]);
      expect(timers.pending()).toBe(1);
      expect((await bodyOf(4)).body).toBeNull();
      timers.fire();
      await both;
      expect([(await bodyOf(4)).body, (await bodyOf(5)).body]).toEqual(['alone-a', 'alone-b']);
      expect(pool.idleCount, 'the connection it took is back in the pool').toBe(pool.totalCount);
    } finally {
      await pool.end();
    }
  });

  it("a failing write rejects its own promise only: the others and the caller's statement go through", async () => {
    const { pool, deferred } = await pipelinedPool(manualTimers());
    try {
      const bad = deferred.defer('update notes set id = $1::integer where id = $2::integer', [7, 6]); // 7 exists
      const good = deferred.defer(SET, [8, 'after-a-failure']);
      const caller = pool.query('select 1 as one');
      await expect(bad).rejects.toMatchObject({ code: '23505' });
      await good;
      expect((await caller).rows).toEqual([{ one: 1 }]);
      expect((await bodyOf(8)).body).toBe('after-a-failure');
    } finally {
      await pool.end();
    }
  });

  it('closePostgres sends what waits before it closes the pool', async () => {
    const db = await openPostgres(database.url, { poolSize: 1 });
    const written = deferredWritesOf(db.$client)!.defer(SET, [9, 'at-close']);
    await closePostgres(db);
    await written;
    expect((await bodyOf(9)).body).toBe('at-close');
  });

  it('a deferrable write inside a transaction is part of it at once: rolled back with it, never deferred', async () => {
    const db = await openPostgres(database.url, { poolSize: 1 });
    const write = deferrableText(SET);
    try {
      await expect(
        db.transaction(async (tx) => {
          await write(tx, [10, 'in-tx']);
          const { rows } = await (tx as unknown as { session: { client: pg.PoolClient } }).session.client.query(
            'select body from notes where id = 10',
          );
          expect(rows).toEqual([{ body: 'in-tx' }]);
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      expect((await bodyOf(10)).body).toBeNull();
      // On the pool it waits for company: the next statement carries it.
      const pending = write(drizzle(db.$client), [11, 'on-the-pool']);
      expect((await bodyOf(11)).body).toBeNull();
      await db.$client.query('select 1');
      await pending;
      expect((await bodyOf(11)).body).toBe('on-the-pool');
    } finally {
      await closePostgres(db);
    }
  });
});
