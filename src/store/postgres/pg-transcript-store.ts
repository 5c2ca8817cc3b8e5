import { and, desc, eq, lt } from 'drizzle-orm';
import type { Clock } from '../../clock.js';
import type { TranscriptStore } from '../../conversations/transcript-store.js';
import { messages } from '../../db/pg-schema.js';
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
        })
        .returning({ id: messages.id });
      return row!.id;
    },
    async recent(conversationId, limit, beforeId) {
      const where = beforeId === undefined ? eq(messages.conversationId, conversationId) : and(eq(messages.conversationId, conversationId), lt(messages.id, beforeId));
      const rows = await db.select().from(messages).where(where).orderBy(desc(messages.id)).limit(limit);
      return rows.reverse();
    },
  };
}
