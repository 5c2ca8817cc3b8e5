import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closePostgres, openPostgres, type PgDb } from '../../src/db/pg-client.js';
import { createPostgresStore, type PostgresStore } from '../../src/composition/pg-store.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { useTestDatabase } from '../support/test-database.js';

/*
 * Issue 40, fifth round: plain reads issued on the pool together (a run's context: summaries, transcript,
 * memories) go out on one pooled connection, pipelined, instead of one connection and one wake-up each.
 */

const database = useTestDatabase();
let db: PgDb;
let store: PostgresStore;
let connects = 0;
let seq = 0;
const thread = () => ({ platform: 'memory', workspace: 'W1', channel: 'C1', thread: `B${++seq}` });

beforeAll(async () => {
  if (database.skip) return;
  db = await openPostgres(database.url, { poolSize: 4 });
  const connect = db.$client.connect.bind(db.$client) as (...args: unknown[]) => unknown;
  (db.$client as unknown as { connect: unknown }).connect = (...args: unknown[]) => {
    connects++;
    return connect(...args);
  };
  store = createPostgresStore(db, new FakeClock(1_000));
});
afterAll(async () => {
  if (db) await closePostgres(db);
});

describe.skipIf(database.skip)('plain reads sent together on the pool', () => {
  it('go out on one connection and each gets its own answer', async () => {
    const id = await store.conversations.ensure(thread());
    await store.transcript.append({ conversationId: id, runId: null, role: 'user', content: 'hello' });
    connects = 0;
    const [conversation, rows, summary] = await Promise.all([
      store.conversations.get(id),
      store.transcript.recent(id, 10),
      store.memory.summary(id),
    ]);
    expect(connects).toBe(1);
    expect(conversation?.id).toBe(id);
    expect(rows.map((r) => r.content)).toEqual(['hello']);
    expect(summary).toBeNull();
  });

  it('fails a read alone: the others of its batch are answered, and the connection serves the next ones', async () => {
    const pool = db.$client;
    const results = await Promise.allSettled([
      pool.query('select 1 as one'),
      pool.query('select * from no_such_table'),
      pool.query('select 2 as two'),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[2] as PromiseFulfilledResult<{ rows: unknown[] }>).value.rows).toEqual([{ two: 2 }]);
    const again = await Promise.all([pool.query('select 3 as three'), pool.query('select 4 as four')]);
    expect(again.map((r) => r.rows[0])).toEqual([{ three: 3 }, { four: 4 }]);
  });

  it('leaves writes and locking reads to connections of their own', async () => {
    const id = await store.conversations.ensure(thread());
    connects = 0;
    await Promise.all([
      db.$client.query('select id from conversations where id = $1 for no key update', [id]),
      db.$client.query('update conversations set updated_at = updated_at where id = $1', [id]),
    ]);
    expect(connects).toBe(2);
  });
});
