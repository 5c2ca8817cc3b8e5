import { bigint, index, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { PRIVATE_ANSWER_STATES } from './privacy-schema.js';
import { epochMs } from './pg-columns.js';

/** An answer held back for its owner's Share / Keep private choice (see privacy-schema.ts). */
export const privateAnswers = pgTable(
  'private_answers',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    conversationId: text('conversation_id').notNull(),
    runId: text('run_id'),
    messageId: bigint('message_id', { mode: 'number' }),
    owner: text('owner').notNull(),
    purpose: text('purpose', { enum: ['answer', 'update', 'files'] }).notNull(),
    text: text('text').notNull(),
    state: text('state', { enum: PRIVATE_ANSWER_STATES }).notNull(),
    createdAt: epochMs('created_at').notNull(),
    decidedAt: epochMs('decided_at'),
  },
  (t) => [index('private_answers_conversation_idx').on(t.conversationId, t.id)],
);

/** One person's summary of their private material that fell out of a conversation's context. */
export const privateSummaries = pgTable(
  'private_summaries',
  {
    conversationId: text('conversation_id').notNull(),
    owner: text('owner').notNull(),
    summary: text('summary').notNull(),
    throughMessageId: bigint('through_message_id', { mode: 'number' }).notNull(),
    version: integer('version').notNull(),
    updatedAt: epochMs('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.conversationId, t.owner] })],
);

/** Which transcript rows show a long-term memory's text (a `recall` result). */
export const recalledMemories = pgTable(
  'recalled_memories',
  {
    memoryId: integer('memory_id').notNull(),
    messageId: bigint('message_id', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.memoryId, t.messageId] })],
);

// The files of a private run: held for their owner's choice, and its person's own workspace files (schema.ts is at its cap).
export * from './pg-private-files-schema.js';
