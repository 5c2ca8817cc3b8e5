import type { Db } from '../../db/client.js';
import type { CatchUpQueries, SeenMessage } from '../store.js';
import type { Synchronous } from './synchronous.js';

/** Conversations with work that a missed message could change: an active or waiting run, or open tasks. */
const OPEN_CONVERSATIONS_SQL = `select conversation_id as id from runs where status in ('running', 'waiting_user')
  union select conversation_id from tasks where status in ('pending', 'in_progress') limit ?`;
const LAST_TRANSCRIPT_ID_SQL = `select platform_message_id as id, created_at as at from messages
  where conversation_id = ? and platform_message_id is not null order by id desc limit 1`;
const LAST_TASK_ID_SQL = `select source_message_id as id, created_at as at from tasks
  where conversation_id = ? and source_message_id is not null order by id desc limit 1`;

/** Catch-up's reads on SQLite, prepared once. */
export function createSqliteCatchUpQueries(db: Db): Synchronous<CatchUpQueries> {
  const open = db.$client.prepare(OPEN_CONVERSATIONS_SQL);
  const lastTranscript = db.$client.prepare(LAST_TRANSCRIPT_ID_SQL);
  const lastTask = db.$client.prepare(LAST_TASK_ID_SQL);
  return {
    openConversations: (limit) => (open.all(limit) as { id: string }[]).map((r) => r.id),
    lastSeen(conversationId) {
      const seen = [
        lastTranscript.get(conversationId) as SeenMessage | undefined,
        lastTask.get(conversationId) as SeenMessage | undefined,
      ].filter((r): r is SeenMessage => r !== undefined);
      return seen.sort((a, b) => b.at - a.at)[0] ?? null;
    },
  };
}
