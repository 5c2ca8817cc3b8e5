import { index, integer, primaryKey, real, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * Model usage per person per UTC day per model, with the cached part of the input and its price in dollars
 * (DESIGN.md "Traces and cost"): what the dollar budgets and the per-model lines of `/usage` read. The token
 * totals of `usage_daily` stay the source of the token budgets; this table adds what they cannot tell apart.
 */
export const usageModelDaily = sqliteTable(
  'usage_model_daily',
  {
    /** UTC day, `YYYY-MM-DD`. */
    day: text('day').notNull(),
    /** Who was charged: `platform:user id`, as in `usage_daily`. */
    user: text('user').notNull(),
    /** The model asked (the name `pricing` is keyed by). */
    model: text('model').notNull(),
    promptTokens: integer('prompt_tokens').notNull().default(0),
    completionTokens: integer('completion_tokens').notNull().default(0),
    /** The part of the prompt the endpoint served from its cache (`usage.prompt_tokens_details.cached_tokens`). */
    cachedTokens: integer('cached_tokens').notNull().default(0),
    /** Dollars, at the price configured when each response was recorded (0 for a model without a price). */
    costUsd: real('cost_usd').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.day, t.user, t.model] }), index('usage_model_daily_user_idx').on(t.user, t.day)],
);

/** What one run has cost in dollars so far: `limits.usdPerRun` reads it when a run resumes. */
export const runCosts = sqliteTable('run_costs', {
  runId: text('run_id').primaryKey(),
  costUsd: real('cost_usd').notNull().default(0),
});

/**
 * The trace a run started in (W3C `traceparent`), kept only while tracing is on: a run resumed after a restart
 * or on another process links its new span to it.
 */
export const runTraces = sqliteTable('run_traces', {
  runId: text('run_id').primaryKey(),
  traceparent: text('traceparent').notNull(),
});

export type UsageModelDailyRow = typeof usageModelDaily.$inferSelect;

/** Model tokens per person per UTC day: what daily budgets and `/usage` read. */
export const usageDaily = sqliteTable(
  'usage_daily',
  {
    /** UTC day, `YYYY-MM-DD`. */
    day: text('day').notNull(),
    /** Who was charged: `platform:user id` (a schedule's creator for scheduled runs). */
    user: text('user').notNull(),
    promptTokens: integer('prompt_tokens').notNull().default(0),
    completionTokens: integer('completion_tokens').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.day, t.user] }), index('usage_daily_user_idx').on(t.user, t.day)],
);

export type UsageDailyRow = typeof usageDaily.$inferSelect;
