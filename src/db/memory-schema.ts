import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** Who may see a long-term memory (DESIGN.md "Memory"): the person, a channel, or a whole workspace. */
export type MemoryScope = 'me' | 'channel' | 'workspace';

/**
 * The summary of a conversation's older part (compaction): what fell out of the context, in the model's
 * words, extended each time more falls out. `through_message_id` is the newest transcript row it covers;
 * `version` grows with every write, which is the compare-and-swap that lets one process write at a time.
 */
export const conversationSummaries = sqliteTable('conversation_summaries', {
  conversationId: text('conversation_id').primaryKey(),
  summary: text('summary').notNull(),
  throughMessageId: integer('through_message_id').notNull(),
  version: integer('version').notNull(),
  updatedAt: integer('updated_at').notNull(),
});

/**
 * A long-term memory. `subject` is whom or where it belongs to, decided by the run that stored it, never by
 * the model: `platform:user` for `me`, `platform:workspace:channel` for `channel`, `platform:workspace` for
 * `workspace`. Searched through the FTS5 table `memories_fts` (a custom migration keeps it in step).
 */
export const memories = sqliteTable(
  'memories',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    scope: text('scope').$type<MemoryScope>().notNull(),
    subject: text('subject').notNull(),
    text: text('text').notNull(),
    /** The principal who asked for it (`platform:user`): counted for the per-person limit. */
    createdBy: text('created_by').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('memories_subject_idx').on(t.scope, t.subject, t.id), index('memories_created_by_idx').on(t.createdBy)],
);

export type ConversationSummaryRow = typeof conversationSummaries.$inferSelect;
export type MemoryRow = typeof memories.$inferSelect;
