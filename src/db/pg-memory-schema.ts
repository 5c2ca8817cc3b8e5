import { bigint, index, integer, pgTable, text } from 'drizzle-orm/pg-core';
import type { MemoryScope } from './memory-schema.js';
import { epochMs } from './pg-columns.js';

/** A conversation's summary of what fell out of its context; `version` is the compare-and-swap of its writers. */
export const conversationSummaries = pgTable('conversation_summaries', {
  conversationId: text('conversation_id').primaryKey(),
  summary: text('summary').notNull(),
  throughMessageId: bigint('through_message_id', { mode: 'number' }).notNull(),
  version: integer('version').notNull(),
  updatedAt: epochMs('updated_at').notNull(),
});

/** A long-term memory; the full-text column `search` (tsvector, GIN) lives in a custom migration. */
export const memories = pgTable(
  'memories',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    scope: text('scope').$type<MemoryScope>().notNull(),
    subject: text('subject').notNull(),
    text: text('text').notNull(),
    createdBy: text('created_by').notNull(),
    createdAt: epochMs('created_at').notNull(),
  },
  (t) => [index('memories_subject_idx').on(t.scope, t.subject, t.id), index('memories_created_by_idx').on(t.createdBy)],
);
