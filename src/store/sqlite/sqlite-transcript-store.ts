import { and, desc, eq, lt } from 'drizzle-orm';
import type { Clock } from '../../clock.js';
import type { Db } from '../../db/client.js';
import { messages } from '../../db/schema.js';
import type { TranscriptStore } from '../../conversations/transcript-store.js';
import { MESSAGE_COLUMNS, messageFromRaw } from './raw-rows.js';
import { limitedStatement } from './limited-statement.js';
import type { Synchronous } from './synchronous.js';

/** The transcript on SQLite: one prepared insert per step, newest-first reads by the conversation index. */

export function createSqliteTranscriptStore(db: Db, clock: Clock): Synchronous<TranscriptStore> {
  const insert = db.$client.prepare(
    'insert into messages (conversation_id, run_id, role, content, tool_calls, tool_call_id, author_id, platform_message_id, images, created_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  // Read at every model step: raw rows mapped by position (raw-rows.ts).
  const recentStmt = limitedStatement(db.$client, `select ${MESSAGE_COLUMNS} from messages where conversation_id = ? order by id desc limit {limit}`, (s) => s.raw());
  return {
    append(e) {
      const toolCalls = e.toolCalls && e.toolCalls.length > 0 ? JSON.stringify(e.toolCalls) : null;
      const images = e.images && e.images.length > 0 ? JSON.stringify(e.images) : null;
      const r = insert.run(e.conversationId, e.runId, e.role, e.content, toolCalls, e.toolCallId ?? null, e.authorId ?? null, e.platformMessageId ?? null, images, clock.now());
      return Number(r.lastInsertRowid);
    },
    recent(conversationId, limit, beforeId) {
      if (beforeId === undefined) return (recentStmt(limit).all(conversationId) as unknown[][]).map(messageFromRaw).reverse();
      return db.select().from(messages).where(and(eq(messages.conversationId, conversationId), lt(messages.id, beforeId))).orderBy(desc(messages.id)).limit(limit).all().reverse();
    },
  };
}
