import { and, asc, desc, eq, gt, lt, lte, sql } from 'drizzle-orm';
import type { Clock } from '../../clock.js';
import type { TranscriptStore } from '../../conversations/transcript-store.js';
import { messages, recalledMemories } from '../../db/pg-schema.js';
import type { PgExecutor } from './pg-executor.js';
import { prepared } from './pg-prepared.js';

const P = sql.placeholder;
// The jsonb columns take their JSON text (or null) as it is: a drizzle placeholder would encode null as the JSON `null`.
const appendRow = prepared((d) =>
  d
    .insert(messages)
    .values({
      conversationId: P('conversationId'),
      runId: P('runId'),
      role: P('role'),
      content: P('content'),
      toolCalls: sql`${P('toolCalls')}::jsonb`,
      toolCallId: P('toolCallId'),
      authorId: P('authorId'),
      platformMessageId: P('platformMessageId'),
      images: sql`${P('images')}::jsonb`,
      createdAt: P('now'),
      privateTo: P('privateTo'),
    })
    .returning({ id: messages.id }),
);
const recentRows = prepared((d) =>
  d
    .select()
    .from(messages)
    .where(eq(messages.conversationId, P('conversationId')))
    .orderBy(desc(messages.id))
    .limit(P('limit')),
);

/** The transcript on PostgreSQL: one insert per step, newest-first reads by the conversation index. */
export function createPgTranscriptStore(db: PgExecutor, clock: Clock): TranscriptStore {
  return {
    async append(e) {
      const [row] = await appendRow(db, {
        conversationId: e.conversationId,
        runId: e.runId,
        role: e.role,
        content: e.content,
        toolCalls: e.toolCalls && e.toolCalls.length > 0 ? JSON.stringify(e.toolCalls) : null,
        toolCallId: e.toolCallId ?? null,
        authorId: e.authorId ?? null,
        platformMessageId: e.platformMessageId ?? null,
        images: e.images && e.images.length > 0 ? JSON.stringify(e.images) : null,
        now: clock.now(),
        privateTo: e.privateTo ?? null,
      });
      const id = row!.id;
      if (e.memoryIds && e.memoryIds.length > 0) {
        await db
          .insert(recalledMemories)
          .values(e.memoryIds.map((memoryId) => ({ memoryId, messageId: id })))
          .onConflictDoNothing();
      }
      return id;
    },
    async recent(conversationId, limit, beforeId) {
      const rows =
        beforeId === undefined
          ? await recentRows(db, { conversationId, limit })
          : await db
              .select()
              .from(messages)
              .where(and(eq(messages.conversationId, conversationId), lt(messages.id, beforeId)))
              .orderBy(desc(messages.id))
              .limit(limit);
      return rows.reverse();
    },
    async privateRows(conversationId, owner, afterId, throughId, limit) {
      const where = and(
        eq(messages.conversationId, conversationId),
        eq(messages.privateTo, owner),
        gt(messages.id, afterId),
        lte(messages.id, throughId),
      );
      return db.select().from(messages).where(where).orderBy(asc(messages.id)).limit(limit);
    },
  };
}
