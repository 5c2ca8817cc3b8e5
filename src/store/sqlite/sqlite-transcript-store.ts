import { and, asc, desc, eq, gt, lt, lte } from 'drizzle-orm';
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
    'insert into messages (conversation_id, run_id, role, content, tool_calls, tool_call_id, author_id, platform_message_id, images, created_at, private_to) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const recalled = db.$client.prepare('insert or ignore into recalled_memories (memory_id, message_id) values (?, ?)');
  // Read at every model step: raw rows mapped by position (raw-rows.ts).
  const recentStmt = limitedStatement(
    db.$client,
    `select ${MESSAGE_COLUMNS} from messages where conversation_id = ? order by id desc limit {limit}`,
    (s) => s.raw(),
  );
  return {
    append(e) {
      const toolCalls = e.toolCalls && e.toolCalls.length > 0 ? JSON.stringify(e.toolCalls) : null;
      const images = e.images && e.images.length > 0 ? JSON.stringify(e.images) : null;
      const r = insert.run(
        e.conversationId,
        e.runId,
        e.role,
        e.content,
        toolCalls,
        e.toolCallId ?? null,
        e.authorId ?? null,
        e.platformMessageId ?? null,
        images,
        clock.now(),
        e.privateTo ?? null,
      );
      const id = Number(r.lastInsertRowid);
      for (const memoryId of e.memoryIds ?? []) recalled.run(memoryId, id);
      return id;
    },
    recent(conversationId, limit, beforeId) {
      if (beforeId === undefined)
        return (recentStmt(limit).all(conversationId) as unknown[][]).map(messageFromRaw).reverse();
      return db
        .select()
        .from(messages)
        .where(and(eq(messages.conversationId, conversationId), lt(messages.id, beforeId)))
        .orderBy(desc(messages.id))
        .limit(limit)
        .all()
        .reverse();
    },
    privateRows(conversationId, owner, afterId, throughId, limit) {
      const where = and(
        eq(messages.conversationId, conversationId),
        eq(messages.privateTo, owner),
        gt(messages.id, afterId),
        lte(messages.id, throughId),
      );
      return db.select().from(messages).where(where).orderBy(asc(messages.id)).limit(limit).all();
    },
  };
}
