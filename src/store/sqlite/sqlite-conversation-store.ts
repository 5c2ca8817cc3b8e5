import { and, eq } from 'drizzle-orm';
import type { Clock } from '../../clock.js';
import { channelKey, conversationKey, parseConversationKey } from '../../chat/conversation-ref.js';
import type { Db } from '../../db/client.js';
import { conversations } from '../../db/schema.js';
import type { ConversationStore } from '../../conversations/conversation-store.js';
import { CONVERSATION_COLUMNS, conversationFromRaw } from './raw-rows.js';
import type { Synchronous } from './synchronous.js';

/**
 * Conversation keys start with `platform:workspace:channel:` and parts never contain ':', so a
 * channel's conversations are the key range [`…channel:`, `…channel;`) — ';' follows ':'.
 */
export const OPEN_WORK_IN_CHANNEL_SQL = `select c.* from conversations c where c.id in (
  select conversation_id from tasks where status in ('pending', 'in_progress') and conversation_id >= @lo and conversation_id < @hi
  union
  select conversation_id from runs where status in ('running', 'waiting_user') and conversation_id >= @lo and conversation_id < @hi
) order by c.created_at, c.id`;

interface RawConversation {
  id: string;
  platform: string;
  workspace: string;
  channel: string;
  thread: string | null;
  timezone: string | null;
  created_at: number;
  updated_at: number;
}

/** Conversations on SQLite: an upsert on first sight, open work through partial indexes on a key range. */
export function createSqliteConversationStore(db: Db, clock: Clock): Synchronous<ConversationStore> {
  const upsert = db.$client.prepare(
    `insert into conversations (id, platform, workspace, channel, thread, timezone, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?, ?)
     on conflict (id) do update set updated_at = excluded.updated_at, timezone = coalesce(excluded.timezone, conversations.timezone)`,
  );
  const openWorkStmt = db.$client.prepare(OPEN_WORK_IN_CHANNEL_SQL);
  // Asked at every message and run start: a raw row mapped by position (raw-rows.ts).
  const getStmt = db.$client.prepare(`select ${CONVERSATION_COLUMNS} from conversations where id = ?`).raw();
  return {
    ensure(ref, timezone) {
      const id = conversationKey(ref);
      const now = clock.now();
      upsert.run(id, ref.platform, ref.workspace, ref.channel, ref.thread, timezone ? timezone : null, now, now);
      return id;
    },
    get(id) {
      const raw = getStmt.get(id) as unknown[] | undefined;
      return raw ? conversationFromRaw(raw) : null;
    },
    refOf(id) {
      return parseConversationKey(id);
    },
    listInChannel(channel) {
      return db
        .select()
        .from(conversations)
        .where(
          and(
            eq(conversations.platform, channel.platform),
            eq(conversations.workspace, channel.workspace),
            eq(conversations.channel, channel.channel),
          ),
        )
        .all();
    },
    listWithOpenWork(channel) {
      const prefix = channelKey(channel);
      const rows = openWorkStmt.all({ lo: `${prefix}:`, hi: `${prefix};` }) as RawConversation[];
      return rows.map((r) => ({
        id: r.id,
        platform: r.platform,
        workspace: r.workspace,
        channel: r.channel,
        thread: r.thread,
        timezone: r.timezone,
        createdAt: r.created_at,
        updatedAt: r.updated_at,
      }));
    },
  };
}
