import { bigint, doublePrecision, index, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';

/** Model usage per person per UTC day per model, with cached input tokens and dollars (see cost-schema.ts). */
export const usageModelDaily = pgTable(
  'usage_model_daily',
  {
    day: text('day').notNull(),
    user: text('user').notNull(),
    model: text('model').notNull(),
    promptTokens: bigint('prompt_tokens', { mode: 'number' }).notNull().default(0),
    completionTokens: bigint('completion_tokens', { mode: 'number' }).notNull().default(0),
    cachedTokens: bigint('cached_tokens', { mode: 'number' }).notNull().default(0),
    costUsd: doublePrecision('cost_usd').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.day, t.user, t.model] }), index('usage_model_daily_user_idx').on(t.user, t.day)],
);

/** What one run has cost in dollars so far. */
export const runCosts = pgTable('run_costs', {
  runId: text('run_id').primaryKey(),
  costUsd: doublePrecision('cost_usd').notNull().default(0),
});

/** The trace a run started in (W3C `traceparent`), for the link of a resumed run. */
export const runTraces = pgTable('run_traces', {
  runId: text('run_id').primaryKey(),
  traceparent: text('traceparent').notNull(),
});

/** Model tokens per person per UTC day: what daily budgets and `/usage` read. */
export const usageDaily = pgTable(
  'usage_daily',
  {
    /** UTC day, `YYYY-MM-DD`. */
    day: text('day').notNull(),
    /** Who was charged: `platform:user id` (a schedule's creator for scheduled runs). */
    user: text('user').notNull(),
    promptTokens: bigint('prompt_tokens', { mode: 'number' }).notNull().default(0),
    completionTokens: bigint('completion_tokens', { mode: 'number' }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.day, t.user] }), index('usage_daily_user_idx').on(t.user, t.day)],
);
