import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { closePostgres, openPostgres, type PgDb } from '../../src/db/pg-client.js';
import { conversations } from '../../src/db/pg-schema.js';
import { useTestDatabase } from '../support/test-database.js';

const database = useTestDatabase();

async function withDb<T>(fn: (db: PgDb) => Promise<T>): Promise<T> {
  const db = await openPostgres(database.url, { poolSize: 1 });
  try {
    return await fn(db);
  } finally {
    await closePostgres(db);
  }
}

/** The node-postgres client under a drizzle transaction, to ask it what the server said last. */
const clientOf = (tx: unknown) =>
  (tx as { session: { client: { getTransactionStatus(): string | null } } }).session.client;

const row = (thread: string) => ({
  id: `slack:T1:C1:${thread}`,
  platform: 'slack',
  workspace: 'T1',
  channel: 'C1',
  thread,
  createdAt: 1,
  updatedAt: 1,
});

describe.skipIf(database.skip)("a transaction's begin goes out with its first statement (issue 40)", () => {
  it('does not wait for the answer to begin before the body runs: the server has not answered it yet', async () => {
    await withDb(async (db) => {
      await db.transaction(async (tx) => {
        // Idle ('I') is what the server said before this transaction: begin's own answer ('T') has not been read.
        expect(clientOf(tx).getTransactionStatus()).toBe('I');
        await tx.insert(conversations).values(row('pipelined-1'));
        expect(clientOf(tx).getTransactionStatus()).toBe('T');
      });
      expect(
        await db
          .select()
          .from(conversations)
          .where(eq(conversations.id, row('pipelined-1').id)),
      ).toHaveLength(1);
    });
  });

  it("still runs the body inside the transaction: a failure rolls back the body's first statement, and the connection serves the next caller", async () => {
    await withDb(async (db) => {
      await expect(
        db.transaction(async (tx) => {
          await tx.insert(conversations).values(row('pipelined-2'));
          await tx.insert(conversations).values(row('pipelined-2')); // duplicate key: the transaction fails
        }),
      ).rejects.toThrow();
      expect(
        await db
          .select()
          .from(conversations)
          .where(eq(conversations.id, row('pipelined-2').id)),
      ).toEqual([]);
      // The one pooled connection is back to idle, outside any transaction.
      await db.transaction(async (tx) => {
        await tx.insert(conversations).values(row('pipelined-3'));
      });
      expect(
        await db
          .select()
          .from(conversations)
          .where(eq(conversations.id, row('pipelined-3').id)),
      ).toHaveLength(1);
    });
  });

  it('commits an empty transaction and one whose body throws before any statement, leaving the connection usable', async () => {
    await withDb(async (db) => {
      await db.transaction(async () => undefined);
      await expect(
        db.transaction(async () => {
          throw new Error('before any statement');
        }),
      ).rejects.toThrow('before any statement');
      const { rows } = await db.execute<{ n: number }>(sql`select 1 as n`);
      expect(rows).toEqual([{ n: 1 }]);
    });
  });
});
