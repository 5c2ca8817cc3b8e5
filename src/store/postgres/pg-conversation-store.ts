import { and, asc, eq, gte, inArray, lt, sql, type SQL } from 'drizzle-orm';
import type { Clock } from '../../clock.js';
import { channelKey, conversationKey, parseConversationKey } from '../../chat/conversation-ref.js';
import type { ConversationStore } from '../../conversations/conversation-store.js';
import { conversations, runs, tasks } from '../../db/pg-schema.js';
import type { PgExecutor } from './pg-executor.js';
import { prepared } from './pg-prepared.js';
import { heldConversation } from './pg-conversation-locks.js';

const P = sql.placeholder;
const ensureRow = prepared((d) =>
  d
    .insert(conversations)
    .values({
      id: P('id'),
      platform: P('platform'),
      workspace: P('workspace'),
      channel: P('channel'),
      thread: P('thread'),
      timezone: P('timezone'),
      createdAt: P('now'),
      updatedAt: P('now'),
    })
    .onConflictDoUpdate({
      target: conversations.id,
      set: { updatedAt: sql`${P('now')}`, timezone: sql`coalesce(excluded.timezone, ${conversations.timezone})` },
    }),
);
const conversationById = prepared((d) =>
  d
    .select()
    .from(conversations)
    .where(eq(conversations.id, P('id'))),
);

/** Conversation keys in `[lo, hi)`: a channel's conversations, as in the SQLite store (keys sort byte-wise). */
const inKeyRange = (column: typeof tasks.conversationId | typeof runs.conversationId, lo: string, hi: string): SQL =>
  and(gte(column, lo), lt(column, hi))!;

/** Conversations on PostgreSQL: an upsert on first sight, open work through the partial indexes on a key range. */
export function createPgConversationStore(db: PgExecutor, clock: Clock): ConversationStore {
  return {
    async ensure(ref, timezone) {
      const id = conversationKey(ref);
      const now = clock.now();
      await ensureRow(db, {
        id,
        platform: ref.platform,
        workspace: ref.workspace,
        channel: ref.channel,
        thread: ref.thread,
        timezone: timezone ? timezone : null,
        now,
      });
      // The upsert always updates (or inserts) the row: it stays locked until this transaction ends.
      heldConversation(db, id);
      return id;
    },
    async get(id) {
      const [row] = await conversationById(db, { id });
      return row ?? null;
    },
    refOf(id) {
      return parseConversationKey(id);
    },
    async listInChannel(channel) {
      return db
        .select()
        .from(conversations)
        .where(
          and(
            eq(conversations.platform, channel.platform),
            eq(conversations.workspace, channel.workspace),
            eq(conversations.channel, channel.channel),
          ),
        );
    },
    async listWithOpenWork(channel) {
      const prefix = channelKey(channel);
      const [lo, hi] = [`${prefix}:`, `${prefix};`];
      const open = db
        .select({ id: tasks.conversationId })
        .from(tasks)
        .where(and(sql`${tasks.status} in ('pending', 'in_progress')`, inKeyRange(tasks.conversationId, lo, hi)))
        .union(
          db
            .select({ id: runs.conversationId })
            .from(runs)
            .where(and(sql`${runs.status} in ('running', 'waiting_user')`, inKeyRange(runs.conversationId, lo, hi))),
        );
      const ids = (await open).map((r) => r.id);
      if (ids.length === 0) return [];
      return db
        .select()
        .from(conversations)
        .where(inArray(conversations.id, ids))
        .orderBy(asc(conversations.createdAt), asc(conversations.id));
    },
  };
}
