import { and, desc, eq, gte, sql } from 'drizzle-orm';
import type { TokenTotals, UsageStore } from '../../budget/usage-store.js';
import { runs, usageDaily } from '../../db/pg-schema.js';
import type { PgExecutor } from './pg-executor.js';
import { prepared } from './pg-prepared.js';

const P = sql.placeholder;
/**
 * The day's usage and the run's tokens in one statement (a data-modifying CTE runs to completion whether or
 * not the update reads it): one round trip, atomic without a transaction of its own (issue 40).
 */
const recordUsage = prepared((d) => {
  const daily = d.$with('daily').as(
    d
      .insert(usageDaily)
      .values({
        day: P('day'),
        user: P('user'),
        promptTokens: P('promptTokens'),
        completionTokens: P('completionTokens'),
      })
      .onConflictDoUpdate({
        target: [usageDaily.day, usageDaily.user],
        set: {
          promptTokens: sql`${usageDaily.promptTokens} + excluded.prompt_tokens`,
          completionTokens: sql`${usageDaily.completionTokens} + excluded.completion_tokens`,
        },
      })
      .returning({ day: usageDaily.day }),
  );
  return d
    .with(daily)
    .update(runs)
    .set({ tokens: sql`${runs.tokens} + ${P('tokens')}::integer` })
    .where(eq(runs.id, P('runId')))
    .returning({ tokens: runs.tokens });
});

/** Sums come back from `pg` as strings (numeric); `mapWith(Number)` makes them numbers, null when no row matched. */
const totals = {
  promptTokens: sql<number | null>`sum(${usageDaily.promptTokens})`.mapWith(Number),
  completionTokens: sql<number | null>`sum(${usageDaily.completionTokens})`.mapWith(Number),
};

const totalsOf = (row: { promptTokens: number | null; completionTokens: number | null } | undefined): TokenTotals => ({
  promptTokens: row?.promptTokens ?? 0,
  completionTokens: row?.completionTokens ?? 0,
});

/** Usage on PostgreSQL: an additive upsert per day, sums through the primary key and the user index. */
export function createPgUsageStore(db: PgExecutor): UsageStore {
  const sumWhere = async (where: ReturnType<typeof and>) =>
    totalsOf((await db.select(totals).from(usageDaily).where(where))[0]);
  return {
    async record(runId, day, user, usage) {
      const [row] = await recordUsage(db, {
        day,
        user,
        promptTokens: usage.promptTokens,
        completionTokens: usage.completionTokens,
        tokens: usage.promptTokens + usage.completionTokens,
        runId,
      });
      return row?.tokens ?? 0;
    },
    async userDay(day, user) {
      const [row] = await db
        .select({ promptTokens: usageDaily.promptTokens, completionTokens: usageDaily.completionTokens })
        .from(usageDaily)
        .where(and(eq(usageDaily.day, day), eq(usageDaily.user, user)));
      return totalsOf(row);
    },
    teamDay: (day) => sumWhere(eq(usageDaily.day, day)),
    userSince: (user, fromDay) => sumWhere(and(eq(usageDaily.user, user), gte(usageDaily.day, fromDay))),
    teamSince: (fromDay) => sumWhere(gte(usageDaily.day, fromDay)),
    async topUsersSince(fromDay, limit) {
      const rows = await db
        .select({ user: usageDaily.user, ...totals })
        .from(usageDaily)
        .where(gte(usageDaily.day, fromDay))
        .groupBy(usageDaily.user)
        .orderBy(desc(sql`sum(${usageDaily.promptTokens} + ${usageDaily.completionTokens})`), usageDaily.user)
        .limit(limit);
      return rows.map((r) => ({ user: r.user, ...totalsOf(r) }));
    },
  };
}
