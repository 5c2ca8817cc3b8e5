import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closePostgres, openPostgres, type PgDb } from '../../src/db/pg-client.js';
import { createPostgresStore } from '../../src/composition/pg-store.js';
import type { PgExecutor } from '../../src/store/postgres/pg-executor.js';
import { runTransaction } from '../../src/store/postgres/pg-transaction.js';
import { isTransaction } from '../../src/store/postgres/pg-within-transaction.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { useTestDatabase } from '../support/test-database.js';

/*
 * Issue 40, fifth round: the PostgreSQL store's transactions are its own (`begin`, the body, `commit`, or
 * `rollback`) on a drizzle executor kept per pooled connection, not drizzle's `transaction`, which built a
 * session, a database object and two statements for each. One connection, so every transaction shares it.
 */

const database = useTestDatabase();
let db: PgDb;
const sent: string[] = [];
let seq = 0;
const thread = () => ({ platform: 'memory', workspace: 'W1', channel: 'C1', thread: `O${++seq}` });

beforeAll(async () => {
  if (database.skip) return;
  db = await openPostgres(database.url, { poolSize: 1 });
  db.$client.on('acquire', (client) => {
    if ((client as unknown as { watched?: true }).watched) return;
    (client as unknown as { watched?: true }).watched = true;
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: unknown }).query = (config: unknown, ...rest: unknown[]) => {
      const text = typeof config === 'string' ? config : (config as { text?: string }).text;
      if (typeof text === 'string') sent.push(text.replace(/\s+/g, ' ').trim().toLowerCase());
      return query(config, ...rest);
    };
  });
});
afterAll(async () => {
  if (db) await closePostgres(db);
});

describe.skipIf(database.skip)('the PostgreSQL store’s own transactions', () => {
  it('keeps one drizzle session per connection, and gives each transaction an executor of its own on it', async () => {
    const seen: PgExecutor[] = [];
    for (let i = 0; i < 2; i++) await runTransaction(db, async (ex) => void seen.push(ex));
    const [a, b] = seen as [PgExecutor, PgExecutor];
    expect(a).not.toBe(b);
    expect(isTransaction(a) && isTransaction(b)).toBe(true);
    const sessionOf = (ex: PgExecutor) => (ex as unknown as { session: unknown }).session;
    expect(sessionOf(a)).toBe(sessionOf(b));
  });

  it('sends begin, the body and commit; a failed body rolls back, and the connection serves the next transaction', async () => {
    const store = createPostgresStore(db, new FakeClock(1_000));
    sent.length = 0;
    const id = await store.atomically((tx) => tx.conversations.ensure(thread()));
    expect(sent[0]).toBe('begin');
    expect(sent.at(-1)).toBe('commit');
    sent.length = 0;
    const failing = thread();
    await expect(
      store.atomically(async (tx) => {
        await tx.conversations.ensure(failing);
        await tx.atomically(() => Promise.reject(new Error('the body failed')));
      }),
    ).rejects.toThrow('the body failed');
    expect(sent[0]).toBe('begin');
    expect(sent.at(-1)).toBe('rollback');
    const rows = await db.execute(sql`select id from conversations where thread = ${failing.thread}`);
    expect(rows.rows, 'the failed transaction left nothing').toEqual([]);
    // A statement that fails inside: its transaction rolls back, the connection is usable again.
    await expect(
      store.atomically(async (tx) => {
        await tx.conversations.ensure(thread());
        await tx.conversations.ensure({ ...thread(), platform: null as unknown as string });
      }),
    ).rejects.toThrow();
    expect((await store.atomically((tx) => tx.conversations.get(id)))?.id).toBe(id);
  });

  it('locks a conversation again in the next transaction on the same connection: what one transaction holds ends with it', async () => {
    const store = createPostgresStore(db, new FakeClock(1_000));
    const conversationId = await store.conversations.ensure(thread());
    const locks = () => sent.filter((s) => s.includes('from "conversations"') && s.includes('for no key update'));
    for (let i = 0; i < 2; i++) {
      sent.length = 0;
      await store.atomically(async (tx) => {
        const added = await tx.tasks.add({ conversationId, title: 't', description: 't', createdBy: 'user' });
        if (!added.ok) throw new Error(added.error);
      });
      expect(locks(), `transaction ${i + 1}`).toHaveLength(1);
    }
  });
});
