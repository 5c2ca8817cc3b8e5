import { and, desc, eq, gte, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import type { CostStore } from '../../budget/cost-store.js';
import { runCosts, usageModelDaily as u } from '../../db/pg-schema.js';
import type { PgExecutor } from './pg-executor.js';
import { prepared } from './pg-prepared.js';

const P = sql.placeholder;
/**
 * The model's usage of the day and the run's cost in one statement (a data-modifying CTE runs to completion
 * whether or not the upsert after it reads it): one round trip, atomic without a transaction (issue 40).
 */
const recordCost = prepared((d) => {
  const daily = d.$with('model_daily').as(
    d
      .insert(u)
      .values({
        day: P('day'),
        user: P('user'),
        model: P('model'),
        promptTokens: P('promptTokens'),
        completionTokens: P('completionTokens'),
        cachedTokens: P('cachedTokens'),
        costUsd: P('usd'),
      })
      .onConflictDoUpdate({
        target: [u.day, u.user, u.model],
        set: {
          promptTokens: sql`${u.promptTokens} + excluded.prompt_tokens`,
          completionTokens: sql`${u.completionTokens} + excluded.completion_tokens`,
          cachedTokens: sql`${u.cachedTokens} + excluded.cached_tokens`,
          costUsd: sql`${u.costUsd} + excluded.cost_usd`,
        },
      })
      .returning({ day: u.day }),
  );
  return d
    .with(daily)
    .insert(runCosts)
    .values({ runId: P('runId'), costUsd: P('usd') })
    .onConflictDoUpdate({ target: runCosts.runId, set: { costUsd: sql`${runCosts.costUsd} + excluded.cost_usd` } })
    .returning({ usd: runCosts.costUsd });
});

/** Sums come back from `pg` as strings (numeric); `mapWith(Number)` makes them numbers. */
const sumOf = (column: AnyColumn) => sql<number | null>`sum(${column})`.mapWith(Number);

/** Usage per model and run costs on PostgreSQL: additive upserts, sums through the primary key and the user index. */
export function createPgCostStore(db: PgExecutor): CostStore {
  const usdWhere = async (where: SQL | undefined) =>
    (
      await db
        .select({ usd: sumOf(u.costUsd) })
        .from(u)
        .where(where)
    )[0]?.usd ?? 0;
  return {
    async record(runId, day, user, c) {
      const [row] = await recordCost(db, {
        day,
        user,
        model: c.model,
        promptTokens: c.promptTokens,
        completionTokens: c.completionTokens,
        cachedTokens: c.cachedTokens,
        usd: c.usd,
        runId,
      });
      return row?.usd ?? 0;
    },
    async runUsd(runId) {
      const [row] = await db.select({ usd: runCosts.costUsd }).from(runCosts).where(eq(runCosts.runId, runId));
      return row?.usd ?? 0;
    },
    userDayUsd: (day, user) => usdWhere(and(eq(u.day, day), eq(u.user, user))),
    teamDayUsd: (day) => usdWhere(eq(u.day, day)),
    userUsdSince: (user, fromDay) => usdWhere(and(eq(u.user, user), gte(u.day, fromDay))),
    async modelsSince(fromDay, user) {
      const rows = await db
        .select({
          model: u.model,
          promptTokens: sumOf(u.promptTokens),
          completionTokens: sumOf(u.completionTokens),
          cachedTokens: sumOf(u.cachedTokens),
          usd: sumOf(u.costUsd),
        })
        .from(u)
        .where(user === null ? gte(u.day, fromDay) : and(eq(u.user, user), gte(u.day, fromDay)))
        .groupBy(u.model)
        .orderBy(desc(sql`sum(${u.costUsd})`), desc(sql`sum(${u.promptTokens} + ${u.completionTokens})`), u.model);
      return rows.map((r) => ({
        model: r.model,
        promptTokens: r.promptTokens ?? 0,
        completionTokens: r.completionTokens ?? 0,
        cachedTokens: r.cachedTokens ?? 0,
        usd: r.usd ?? 0,
      }));
    },
  };
}
