import { boolean, index, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { ELICITATION_STATES } from './elicitation-schema.js';
import { epochMs } from './pg-columns.js';

/** An MCP server's question to a run's principal, shared by every process (see elicitation-schema.ts). */
export const elicitations = pgTable(
  'elicitations',
  {
    id: text('id').primaryKey(),
    runId: text('run_id').notNull(),
    conversationId: text('conversation_id').notNull(),
    platform: text('platform').notNull(),
    principal: text('principal').notNull(),
    server: text('server').notNull(),
    tool: text('tool').notNull(),
    request: jsonb('request').$type<unknown>().notNull(),
    fingerprint: text('fingerprint').notNull(),
    postText: text('post_text').notNull(),
    messageId: text('message_id'),
    state: text('state', { enum: ELICITATION_STATES }).notNull(),
    answer: jsonb('answer').$type<unknown>(),
    answeredBy: text('answered_by'),
    outcome: text('outcome'),
    carriedOver: boolean('carried_over').notNull().default(false),
    replayedAt: epochMs('replayed_at'),
    askedAt: epochMs('asked_at').notNull(),
    settledAt: epochMs('settled_at'),
  },
  (t) => [index('elicitations_run_idx').on(t.runId, t.askedAt)],
);
