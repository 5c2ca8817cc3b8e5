import { asc, and, gte, lt } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { closePostgres, openPostgres, type PgDb } from '../../src/db/pg-client.js';
import { poolUse } from '../../src/db/pg-pool-use.js';
import { DEFAULT_PG_POOL_SIZE } from '../../src/settings/pg-pool-size.js';
import { conversations, runs, tasks } from '../../src/db/pg-schema.js';
import { DatabaseError } from '../../src/errors.js';
import { freePort } from '../support/free-port.js';
import { useTestDatabase } from '../support/test-database.js';

const database = useTestDatabase();

async function withDb<T>(fn: (db: PgDb) => Promise<T>): Promise<T> {
  const db = await openPostgres(database.url);
  try {
    return await fn(db);
  } finally {
    await closePostgres(db);
  }
}

async function openError(url: string): Promise<DatabaseError> {
  const err: unknown = await openPostgres(url, { connectTimeoutMs: 5000 }).then(
    async (db) => {
      await closePostgres(db);
      return null;
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DatabaseError);
  return err as DatabaseError;
}

describe.skipIf(database.skip)('openPostgres', () => {
  it('lets several processes start at once on an empty database: each migration is applied exactly once', async () => {
    const dbs = await Promise.all([1, 2, 3].map(() => openPostgres(database.url, { poolSize: 2 })));
    try {
      const applied = await dbs[0]!.$client.query<{ n: string }>(
        'select count(*) as n from drizzle.__drizzle_migrations',
      );
      expect(Number(applied.rows[0]!.n)).toBeGreaterThan(0);
      const again = await openPostgres(database.url);
      const after = await again.$client.query<{ n: string }>('select count(*) as n from drizzle.__drizzle_migrations');
      await closePostgres(again);
      expect(after.rows[0]!.n).toBe(applied.rows[0]!.n);
      const indexes = await dbs[1]!.$client.query<{ indexname: string }>(
        "select indexname from pg_indexes where schemaname = 'public'",
      );
      expect(indexes.rows.map((r) => r.indexname)).toEqual(
        expect.arrayContaining([
          'tasks_ready_idx',
          'runs_one_active_per_conversation',
          'runs_ask_expiry_idx',
          'schedules_due_idx',
          'runs_lease_idx',
        ]),
      );
    } finally {
      await Promise.all(dbs.map(closePostgres));
    }
  });

  it('reads epoch milliseconds back as numbers and JSON columns as values, like the SQLite store', async () => {
    await withDb(async (db) => {
      const at = Date.UTC(2031, 4, 6, 7, 8, 9, 123);
      await db.insert(conversations).values({
        id: 'slack:T1:C1:1.0',
        platform: 'slack',
        workspace: 'T1',
        channel: 'C1',
        thread: '1.0',
        createdAt: at,
        updatedAt: at,
      });
      const [task] = await db
        .insert(tasks)
        .values({
          conversationId: 'slack:T1:C1:1.0',
          title: 't',
          description: 'd',
          sequence: 1,
          blockedBy: [4, 5],
          blocked: true,
          createdBy: 'user',
          createdAt: at,
          updatedAt: at,
        })
        .returning();
      expect(task).toMatchObject({
        id: expect.any(Number),
        blockedBy: [4, 5],
        blocked: true,
        createdAt: at,
        notBefore: 0,
        status: 'pending',
      });
      const question = {
        question: 'Which one?',
        options: ['a', 'b'],
        toolCallId: 'call_1',
        askedAt: at,
        messageId: null,
        userId: 'U1',
      };
      await db.insert(runs).values({
        id: 'r1',
        conversationId: 'slack:T1:C1:1.0',
        taskId: task!.id,
        status: 'waiting_user',
        question,
        startedAt: at,
        updatedAt: at,
      });
      const [run] = await db.select().from(runs);
      expect(run).toMatchObject({ question, startedAt: at, owner: null, leaseUntil: null });
    });
  });

  it("keeps one active run per conversation and reads a channel's conversations as a byte-wise key range", async () => {
    await withDb(async (db) => {
      const ids = ['slack:T1:C2:-', 'slack:T1:C2:9.1', 'slack:T1:C2;x', 'slack:T1:C20:1.1', 'slack:T1:C2:1.5'];
      for (const id of ids)
        await db
          .insert(conversations)
          .values({ id, platform: 'slack', workspace: 'T1', channel: 'C2', createdAt: 1, updatedAt: 1 });
      const inChannel = await db
        .select({ id: conversations.id })
        .from(conversations)
        .where(and(gte(conversations.id, 'slack:T1:C2:'), lt(conversations.id, 'slack:T1:C2;')))
        .orderBy(asc(conversations.id));
      expect(inChannel.map((r) => r.id)).toEqual(['slack:T1:C2:-', 'slack:T1:C2:1.5', 'slack:T1:C2:9.1']);
      await db.insert(runs).values({ id: 'a', conversationId: ids[0]!, status: 'running', startedAt: 1, updatedAt: 1 });
      await expect(
        db
          .insert(runs)
          .values({ id: 'b', conversationId: ids[0]!, status: 'waiting_user', startedAt: 1, updatedAt: 1 }),
      ).rejects.toThrow();
    });
  });

  it('parses a parameterised statement once per connection and runs it again by name, with the same results', async () => {
    const db = await openPostgres(database.url, { poolSize: 1 });
    try {
      const read = (id: string) =>
        db
          .select({ id: conversations.id })
          .from(conversations)
          .where(and(gte(conversations.id, id), lt(conversations.id, `${id}~`)));
      for (const id of ['absent:T9:C9:1', 'absent:T9:C9:2', 'absent:T9:C9:3']) expect(await read(id)).toEqual([]);
      // One pooled connection: the statement was prepared once on it, and `begin` (no parameters) was not.
      const prepared = await db.$client.query<{ statement: string }>('select statement from pg_prepared_statements');
      expect(prepared.rows.filter((r) => r.statement.startsWith('select "id" from "conversations"'))).toHaveLength(1);
      await db.transaction(async (tx) => void (await tx.select({ id: conversations.id }).from(conversations)));
      const again = await db.$client.query<{ n: string }>(
        'select count(*) as n from pg_prepared_statements where statement ilike $1',
        ['begin%'],
      );
      expect(Number(again.rows[0]!.n)).toBe(0);
    } finally {
      await closePostgres(db);
    }
  });

  it('keeps at most four connections by default however many statements wait, answers them all, and counts the waits', async () => {
    const name = `errand-pool-${process.pid}`;
    const db = await openPostgres(database.url, { applicationName: name });
    const sessions = async () =>
      Number(
        (
          await db.$client.query<{ n: string }>(
            'select count(*) as n from pg_stat_activity where datname = current_database() and application_name = $1',
            [name],
          )
        ).rows[0]!.n,
      );
    try {
      let most = 0;
      let waiting = true;
      const sleeps = Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          db.$client.query<{ i: number }>('select $1::int as i, pg_sleep(0.1)', [i]),
        ),
      ).finally(() => (waiting = false));
      // Each look waits for a connection behind the sleeps: it sees the pool at its fullest.
      while (waiting) most = Math.max(most, await sessions());
      const answers = await sleeps;
      expect(answers.map((r) => r.rows[0]!.i)).toEqual(Array.from({ length: 12 }, (_, i) => i));
      expect(most).toBe(DEFAULT_PG_POOL_SIZE);
      // Four checkouts opened the connections; the other eight sleeps (and the looks) waited for one, ≥ 0.1 s each
      // behind a sleep of 0.1 s.
      const use = poolUse(db.$client)!;
      expect(use).toMatchObject({ size: 4, busy: 0, idle: 4, waiting: 0 });
      expect(use.waits).toBeGreaterThanOrEqual(8);
      expect(use.waitedSeconds).toBeGreaterThan(8 * 0.09);
      // With connections idle, statements one after another never wait.
      for (let i = 0; i < 3; i++) await db.$client.query('select 1');
      expect(poolUse(db.$client)!.waits).toBe(use.waits);
    } finally {
      await closePostgres(db);
    }
  });

  it('names DATABASE_URL and masks the password when the server refuses the login', async () => {
    const url = new URL(database.url);
    url.password = 'not-the-password';
    const err = await openError(url.toString());
    expect(err.message).toContain('DATABASE_URL=');
    expect(err.message).toContain('refused the login');
    expect(err.message).not.toContain('not-the-password');
  });

  it('says the database does not exist when the URL names a missing one', async () => {
    const url = new URL(database.url);
    url.pathname = '/no_such_database';
    expect((await openError(url.toString())).message).toMatch(/DATABASE_URL=.*the database does not exist/);
  });

  it('says the server cannot be reached when nothing listens at the host and port', async () => {
    const url = new URL(database.url);
    url.port = String(await freePort());
    expect((await openError(url.toString())).message).toMatch(
      /DATABASE_URL=.*cannot reach the PostgreSQL server \(ECONNREFUSED\)/,
    );
  });
});

describe('openPostgres with a malformed DATABASE_URL', () => {
  it('rejects a value that is not a postgres:// URL before connecting', async () => {
    expect((await openError('localhost:5432/errand')).message).toMatch(/DATABASE_URL must start with postgres:\/\//);
    expect((await openError('not a url')).message).toMatch(/DATABASE_URL is not a URL/);
    expect((await openError('mysql://u:p@h/db')).message).toMatch(/DATABASE_URL must start with postgres:\/\//);
  });
});
