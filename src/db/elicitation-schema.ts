import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** Where an MCP server's question stands: waiting for its person, or settled one way (the first settlement wins). */
export const ELICITATION_STATES = ['waiting', 'answered', 'declined', 'cancelled'] as const;
export type ElicitationState = (typeof ELICITATION_STATES)[number];

/**
 * A question an MCP server asked a run's principal during a tool call (elicitation, DESIGN.md "Slack's thinking
 * steps, MCP questions and progress"), kept in the database rather than in the memory of the process holding the
 * call: any process can open its form and settle it (a compare-and-swap on `state`), and a restart finds it again.
 * `request` is the server's request as Errand read it (read back through zod); `answer` the MCP result sent back.
 * `carried_over`: the call that asked died with its process and the run waits on this row instead; its answer is
 * given to the same question when the re-issued call asks it again (`replayed_at` once it was).
 */
export const elicitations = sqliteTable(
  'elicitations',
  {
    id: text('id').primaryKey(),
    runId: text('run_id').notNull(),
    conversationId: text('conversation_id').notNull(),
    platform: text('platform').notNull(),
    /** The run's principal: the only person who may answer. */
    principal: text('principal').notNull(),
    server: text('server').notNull(),
    /** The tool as the model called it (`<server>__<tool>`). */
    tool: text('tool').notNull(),
    request: text('request', { mode: 'json' }).$type<unknown>().notNull(),
    /** The request's message and schema (or link) in a canonical form: the same question asked again has the same one. */
    fingerprint: text('fingerprint').notNull(),
    /** The question's post as recorded (edited to say how it ended). */
    postText: text('post_text').notNull(),
    messageId: text('message_id'),
    state: text('state', { enum: ELICITATION_STATES }).notNull(),
    answer: text('answer', { mode: 'json' }).$type<unknown>(),
    answeredBy: text('answered_by'),
    /** What the post says about how it ended. */
    outcome: text('outcome'),
    carriedOver: integer('carried_over', { mode: 'boolean' }).notNull().default(false),
    replayedAt: integer('replayed_at'),
    askedAt: integer('asked_at').notNull(),
    settledAt: integer('settled_at'),
  },
  (t) => [index('elicitations_run_idx').on(t.runId, t.askedAt)],
);

export type ElicitationRow = typeof elicitations.$inferSelect;
