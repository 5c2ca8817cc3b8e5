import type { Person } from '../access/access-policy.js';
import type { LimitsSettings, PricingSettings } from '../settings/team-settings.js';
import { dailyRefusalText } from './budget-notices.js';
import type { BudgetStop, BudgetUnit, ModelCharge, RunBudget, TokenUsage } from './budget-stop.js';
import type { CostStore } from './cost-store.js';
import { createDailyMeter, type DailyMeter } from './daily-meter.js';
import { costOf } from './pricing.js';
import type { UsageStore } from './usage-store.js';
import { msUntilUtcMidnight, utcDay } from './utc-day.js';

/** The user key usage is charged to when a run has nobody to charge (a schedule the agent made): it still counts for everyone. */
export const UNATTRIBUTED = 'unattributed';

/** The model name usage is recorded under when the client did not say which model answered. */
export const UNKNOWN_MODEL = 'unknown';

/** The key a person's usage is stored under: `slack:U123`, `discord:<id>`, `console:you`. */
export function payerKey(platform: string, userId: string): string {
  return `${platform}:${userId}`;
}

/** Who pays for a run: the platform and user id, or null when nobody can be charged. */
export interface Payer {
  readonly platform: string;
  readonly userId: string;
}

/** Token and dollar budgets (`limits` of the configuration file) over recorded usage. */
export interface Budget {
  readonly limits: LimitsSettings;
  /**
   * The private note for a new request past a daily budget, or null when it may go ahead. On the
   * acknowledgement path: from memory for one process; one indexed read per daily limit when
   * processes share the store.
   */
  refusalFor(person: Pick<Person, 'platform' | 'userId'>): Promise<string | null>;
  /** Which daily budget, if any, is used up for this payer now. */
  dailyStop(payer: Payer | null): Promise<Exclude<BudgetStop, { scope: 'run' }> | null>;
  /** The budget of one run: `spent` is the tokens it used before (a resumed run; its dollars are read when a dollar limit needs them). */
  forRun(runId: string, payer: Payer | null, spent: number): RunBudget;
}

export interface BudgetDeps {
  store: UsageStore;
  /** Usage per model and run costs: every response is charged there too, with its price. */
  cost: CostStore;
  limits: LimitsSettings;
  /** Prices per model; absent or empty: every response costs $0. */
  pricing?: PricingSettings;
  now(): number;
  /**
   * Other processes charge the same store (PostgreSQL with DATABASE_URL): then every daily check reads the
   * stored totals, since this process's memory sees only its own spending. Default false: one process
   * owns the database (SQLite) and today's totals are kept in memory.
   */
  shared?: boolean;
}

const sum = (t: { promptTokens: number; completionTokens: number }) => t.promptTokens + t.completionTokens;

/** One daily limit: what it counts, its cap, and the meter that knows today's totals. */
interface DailyLimit {
  readonly unit: BudgetUnit;
  readonly limit: number;
  readonly meter: DailyMeter;
}

/**
 * Creates the budget. Daily checks run on every inbound message; they read today's totals through one meter
 * per unit (daily-meter.ts), so with one process they cost no query once known. Every response is charged
 * twice in the same transaction: its tokens to `usage_daily` and the run, its model's tokens and price to
 * `usage_model_daily` and the run's cost. Token and dollar limits apply alike: the person's daily budget, then
 * everyone's, and per run.
 */
export function createBudget(deps: BudgetDeps): Budget {
  const { store, cost, limits } = deps;
  const pricing = deps.pricing ?? {};
  const shared = deps.shared === true;
  const tokens = createDailyMeter(
    { user: async (d, k) => sum(await store.userDay(d, k)), team: async (d) => sum(await store.teamDay(d)) },
    shared,
  );
  const dollars = createDailyMeter({ user: (d, k) => cost.userDayUsd(d, k), team: (d) => cost.teamDayUsd(d) }, shared);
  const dailyLimits = (perUser: boolean): DailyLimit[] => {
    const list: DailyLimit[] = [];
    const add = (unit: BudgetUnit, limit: number | undefined, meter: DailyMeter) =>
      limit !== undefined && list.push({ unit, limit, meter });
    if (perUser) {
      add('tokens', limits.tokensPerUserPerDay, tokens);
      add('usd', limits.usdPerUserPerDay, dollars);
    } else {
      add('tokens', limits.tokensPerDay, tokens);
      add('usd', limits.usdPerDay, dollars);
    }
    return list;
  };
  const perUser = dailyLimits(true);
  const perTeam = dailyLimits(false);
  const daily = perUser.length > 0 || perTeam.length > 0;

  const dailyStop: Budget['dailyStop'] = async (payer) => {
    if (!daily) return null;
    const now = deps.now();
    const day = utcDay(now);
    if (payer) {
      const key = payerKey(payer.platform, payer.userId);
      for (const { unit, limit, meter } of perUser) {
        const used = await meter.user(day, key, limit);
        if (used >= limit)
          return { scope: 'user_day', unit, used, limit, userId: payer.userId, resetsInMs: msUntilUtcMidnight(now) };
      }
    }
    for (const { unit, limit, meter } of perTeam) {
      const used = await meter.team(day, limit);
      if (used >= limit) return { scope: 'team_day', unit, used, limit, resetsInMs: msUntilUtcMidnight(now) };
    }
    return null;
  };

  return {
    limits,
    dailyStop,
    async refusalFor(person) {
      if (!daily) return null;
      const stop = await dailyStop({ platform: person.platform, userId: person.userId });
      return stop ? dailyRefusalText(stop) : null;
    },
    forRun(runId, payer, spentBefore) {
      let spent = spentBefore;
      // Null until read: a resumed run's earlier cost is read once, at its first check against usdPerRun.
      let spentUsd: number | null = spentBefore === 0 ? 0 : null;
      const key = payer ? payerKey(payer.platform, payer.userId) : UNATTRIBUTED;
      return {
        async record(usage, within) {
          const day = utcDay(deps.now());
          const charge = chargeOf(pricing, usage);
          const begin = () => {
            tokens.begin(day);
            dollars.begin(day);
          };
          const count = () => {
            tokens.add(day, key, sum(usage));
            dollars.add(day, key, charge.usd);
          };
          if (within) {
            spent = await within.usage.record(runId, day, key, usage);
            spentUsd = await within.cost.record(runId, day, key, charge);
            // Today's totals in memory change once the write is committed: a retried transaction records again.
            within.afterCommit(() => {
              begin();
              count();
            });
            return;
          }
          begin();
          spent = await store.record(runId, day, key, usage);
          spentUsd = await cost.record(runId, day, key, charge);
          count();
        },
        charge(usage) {
          const day = utcDay(deps.now());
          const charge = chargeOf(pricing, usage);
          return {
            day,
            user: key,
            usage,
            charge,
            // As `record` within a transaction: the run's totals, then today's totals in memory once committed.
            recorded(runTokens, runUsd) {
              spent = runTokens;
              spentUsd = runUsd;
              tokens.begin(day);
              dollars.begin(day);
              tokens.add(day, key, sum(usage));
              dollars.add(day, key, charge.usd);
            },
          };
        },
        spent: () => spent,
        spentUsd: () => spentUsd ?? 0,
        async exceeded() {
          if (limits.tokensPerRun !== undefined && spent > limits.tokensPerRun)
            return { scope: 'run', unit: 'tokens', used: spent, limit: limits.tokensPerRun };
          if (limits.usdPerRun !== undefined) {
            spentUsd ??= await cost.runUsd(runId);
            if (spentUsd > limits.usdPerRun)
              return { scope: 'run', unit: 'usd', used: spentUsd, limit: limits.usdPerRun };
          }
          return dailyStop(payer);
        },
      };
    },
  };
}

/** One response's usage as charged: its model (UNKNOWN_MODEL when the client did not say), tokens and price. */
export function chargeOf(pricing: PricingSettings, usage: TokenUsage): ModelCharge {
  const model = usage.model ?? UNKNOWN_MODEL;
  return {
    model,
    promptTokens: usage.promptTokens,
    completionTokens: usage.completionTokens,
    cachedTokens: Math.min(usage.cachedTokens ?? 0, usage.promptTokens),
    usd: costOf(pricing, model, usage),
  };
}
