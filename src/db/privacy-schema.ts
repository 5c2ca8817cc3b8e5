import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** Where an answer held back for its owner stands: waiting for their choice, shared in the thread, or kept private. */
export const PRIVATE_ANSWER_STATES = ['held', 'shared', 'kept'] as const;
export type PrivateAnswerState = (typeof PRIVATE_ANSWER_STATES)[number];

/**
 * An answer (or progress update) of a run built on material private to its principal, in a conversation others can
 * read (DESIGN.md "Private stays private in a shared thread"): shown to its owner alone with **Share in thread** /
 * **Keep private**, posted in the thread only once they share it. `message_id` is the transcript row of the answer
 * (made public when shared; null for an update, whose text is in a tool call). The first choice wins (`state`).
 */
export const privateAnswers = sqliteTable(
  'private_answers',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    conversationId: text('conversation_id').notNull(),
    runId: text('run_id'),
    messageId: integer('message_id'),
    /** The run's principal (platform user id): the only person who sees it first and may share it. */
    owner: text('owner').notNull(),
    /** `answer` or `update`: what it is posted as when shared; `files`: files a run's code wrote (`private_answer_files`), `text` naming them. */
    purpose: text('purpose', { enum: ['answer', 'update', 'files'] }).notNull(),
    text: text('text').notNull(),
    state: text('state', { enum: PRIVATE_ANSWER_STATES }).notNull(),
    createdAt: integer('created_at').notNull(),
    decidedAt: integer('decided_at'),
  },
  (t) => [index('private_answers_conversation_idx').on(t.conversationId, t.id)],
);

/**
 * One person's own summary of what fell out of a conversation's context that was private to them (compaction keeps
 * private material out of the shared summary, `conversation_summaries`). Compare-and-swap on `version` as there.
 */
export const privateSummaries = sqliteTable(
  'private_summaries',
  {
    conversationId: text('conversation_id').notNull(),
    /** Whose it is (platform user id). */
    owner: text('owner').notNull(),
    summary: text('summary').notNull(),
    throughMessageId: integer('through_message_id').notNull(),
    version: integer('version').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.conversationId, t.owner] })],
);

/** Which transcript rows show a long-term memory's text (a `recall` result): a `forget` takes it out of each. */
export const recalledMemories = sqliteTable(
  'recalled_memories',
  {
    memoryId: integer('memory_id').notNull(),
    messageId: integer('message_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.memoryId, t.messageId] })],
);

export type PrivateAnswerRow = typeof privateAnswers.$inferSelect;
export type PrivateSummaryRow = typeof privateSummaries.$inferSelect;

// The files of a private run: held for their owner's choice, and its person's own workspace files (schema.ts is at its cap).
export * from './private-files-schema.js';
