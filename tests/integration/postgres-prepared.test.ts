import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { closePostgres, openPostgres, type PgDb } from '../../src/db/pg-client.js';
import { conversations, messages } from '../../src/db/pg-schema.js';
import { prepared } from '../../src/store/postgres/pg-prepared.js';
import { createPostgresStore } from '../../src/composition/pg-store.js';
import { useTestDatabase } from '../support/test-database.js';

const database = useTestDatabase();

async function withDb<T>(fn: (db: PgDb) => Promise<T>): Promise<T> {
  const db = await openPostgres(database.url, { poolSize: 2 });
  try {
    return await fn(db);
  } finally {
    await closePostgres(db);
  }
}

const conversationById = prepared((d) =>
  d
    .select()
    .from(conversations)
    .where(eq(conversations.id, sql.placeholder('id'))),
);

describe.skipIf(database.skip)('prepared statements of the PostgreSQL store (built once, run on any executor)', () => {
  it("runs on the executor it is given: inside a transaction it sees that transaction's uncommitted rows, outside it does not", async () => {
    await withDb(async (db) => {
      const id = 'slack:T1:C1:prepared-1';
      await db.transaction(async (tx) => {
        await tx.insert(conversations).values({
          id,
          platform: 'slack',
          workspace: 'T1',
          channel: 'C1',
          thread: 'prepared-1',
          createdAt: 1,
          updatedAt: 1,
        });
        expect(await conversationById(tx, { id })).toEqual([expect.objectContaining({ id, createdAt: 1 })]);
        // The pool's other connection: the row is not committed yet.
        expect(await conversationById(db, { id })).toEqual([]);
      });
      expect(await conversationById(db, { id })).toEqual([expect.objectContaining({ id, thread: 'prepared-1' })]);
    });
  });

  it('refuses a call that leaves a placeholder without a value, naming it, and sends nothing', async () => {
    await withDb(async (db) => {
      await expect(conversationById(db, {})).rejects.toThrow('No value for placeholder "id" was provided');
      expect(await conversationById(db, { id: 'slack:T1:C1:nothing' })).toEqual([]);
    });
  });

  it('writes an absent tool call list and image list as SQL NULL, not the JSON null, and reads lists back as values', async () => {
    await withDb(async (db) => {
      const store = createPostgresStore(db, { now: () => 5 } as never);
      const conversationId = await store.conversations.ensure({
        platform: 'slack',
        workspace: 'T1',
        channel: 'C1',
        thread: 'prepared-2',
      });
      const plain = await store.transcript.append({ conversationId, runId: null, role: 'user', content: 'hello' });
      const withCalls = await store.transcript.append({
        conversationId,
        runId: null,
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'call_1', name: 'remember', arguments: '{}' }],
      });
      const raw = await db.$client.query<{ id: string; null_calls: boolean; null_images: boolean }>(
        'select id, tool_calls is null as null_calls, images is null as null_images from messages where conversation_id = $1 order by id',
        [conversationId],
      );
      expect(raw.rows.map((r) => [Number(r.id), r.null_calls, r.null_images])).toEqual([
        [plain, true, true],
        [withCalls, false, true],
      ]);
      const rows = await db.select().from(messages).where(eq(messages.conversationId, conversationId));
      expect(rows.find((r) => r.id === withCalls)?.toolCalls).toEqual([
        { id: 'call_1', name: 'remember', arguments: '{}' },
      ]);
    });
  });
});
