import { and, eq, sql } from 'drizzle-orm';
import type { ChannelRef, ConversationRef } from '../chat/conversation-ref.js';
import { conversationKey, parseConversationKey } from '../chat/conversation-ref.js';
import type { Clock } from '../clock.js';
import type { Db } from '../db/client.js';
import { conversations, type ConversationRow } from '../db/schema.js';

/** The registry of conversations: one row per thread of talk, keyed `platform:workspace:channel:thread`. */
export interface ConversationStore {
  /** Creates the row on first sight; records the speaker's timezone when known. Returns the key. */
  ensure(ref: ConversationRef, timezone?: string | null): string;
  get(id: string): ConversationRow | null;
  /** The ref of a stored conversation; null for unknown or malformed keys. */
  refOf(id: string): ConversationRef | null;
  /** Every conversation of a channel (Slack slash commands act channel-wide). */
  listInChannel(channel: ChannelRef): ConversationRow[];
}

export function createConversationStore(db: Db, clock: Clock): ConversationStore {
  const upsert = db.$client.prepare(
    `insert into conversations (id, platform, workspace, channel, thread, timezone, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?, ?)
     on conflict (id) do update set updated_at = excluded.updated_at, timezone = coalesce(excluded.timezone, conversations.timezone)`,
  );
  const getStmt = db.select().from(conversations).where(eq(conversations.id, sql.placeholder('id'))).prepare();
  return {
    ensure(ref, timezone) {
      const id = conversationKey(ref);
      const now = clock.now();
      upsert.run(id, ref.platform, ref.workspace, ref.channel, ref.thread, timezone ? timezone : null, now, now);
      return id;
    },
    get(id) {
      return getStmt.get({ id }) ?? null;
    },
    refOf(id) {
      return parseConversationKey(id);
    },
    listInChannel(channel) {
      return db
        .select()
        .from(conversations)
        .where(and(eq(conversations.platform, channel.platform), eq(conversations.workspace, channel.workspace), eq(conversations.channel, channel.channel)))
        .all();
    },
  };
}
