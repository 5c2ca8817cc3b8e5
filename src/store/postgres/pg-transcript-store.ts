import { and, asc, desc, eq, gt, lt, lte } from 'drizzle-orm';
import type { Clock } from '../../clock.js';
import type { TranscriptStore } from '../../conversations/transcript-store.js';
import { messages, recalledMemories } from '../../db/pg-schema.js';
import type { PgExecutor } from './pg-executor.js';

/** The transcript on PostgreSQL: one insert per step, newest-first reads by the conversation index. */
export function createPgTranscriptStore(db: PgExecutor, clock: Clock): TranscriptStore {
  return {
    async append(e) {
      const [row] = await db
        .insert(messages)
        .values({
          conversationId: e.conversationId,
          runId: e.runId,
          role: e.role,
          content: e.content,
          toolCalls: e.toolCalls && e.toolCalls.length > 0 ? e.toolCalls : null,
          toolCallId: e.toolCallId ?? null,
          authorId: e.authorId ?? null,
          platformMessageId: e.platformMessageId ?? null,
          images: e.images && e.images.length > 0 ? [...e.images] : null,
          createdAt: clock.now(),
          privateTo: e.privateTo ?? null,
        })
        .returning({ id: messages.id });
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
      const where = beforeId === undefined ? eq(messages.conversationId, conversationId) : and(eq(messages.conversationId, conversationId), lt(messages.id, beforeId));
      const rows = await db.select().from(messages).where(where).orderBy(desc(messages.id)).limit(limit);
      return rows.reverse();
    },
    async privateRows(conversationId, owner, afterId, throughId, limit) {
      const where = and(eq(messages.conversationId, conversationId), eq(messages.privateTo, owner), gt(messages.id, afterId), lte(messages.id, throughId));
      return db.select().from(messages).where(where).orderBy(asc(messages.id)).limit(limit);
    },
  };
}
