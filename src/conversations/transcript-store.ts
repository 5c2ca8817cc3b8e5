import { and, desc, eq, lt } from 'drizzle-orm';
import type { Clock } from '../clock.js';
import type { Db } from '../db/client.js';
import { messages, type MessageRole, type MessageRow, type StoredToolCall } from '../db/schema.js';

export interface TranscriptEntry {
  conversationId: string;
  runId: string | null;
  role: MessageRole;
  content: string | null;
  toolCalls?: StoredToolCall[] | null;
  toolCallId?: string | null;
  authorId?: string | null;
  platformMessageId?: string | null;
}

/** The persisted history of each conversation; written step by step so a run survives a restart. */
export interface TranscriptStore {
  append(entry: TranscriptEntry): number;
  /** Newest `limit` messages with id below `beforeId` (default: all), oldest first. */
  recent(conversationId: string, limit: number, beforeId?: number): MessageRow[];
}

export function createTranscriptStore(db: Db, clock: Clock): TranscriptStore {
  return {
    append(e) {
      const row = db
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
          createdAt: clock.now(),
        })
        .returning({ id: messages.id })
        .get();
      return row.id;
    },
    recent(conversationId, limit, beforeId) {
      const where = beforeId === undefined ? eq(messages.conversationId, conversationId) : and(eq(messages.conversationId, conversationId), lt(messages.id, beforeId));
      return db.select().from(messages).where(where).orderBy(desc(messages.id)).limit(limit).all().reverse();
    },
  };
}
