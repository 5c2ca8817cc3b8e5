import type { Person } from '../access/access-policy.js';
import type { LimitsSettings } from '../settings/team-settings.js';
import { dailyRefusalText } from './budget-notices.js';
import type { BudgetStop, RunBudget, TokenUsage } from './budget-stop.js';
import type { UsageStore } from './usage-store.js';
import { msUntilUtcMidnight, utcDay } from './utc-day.js';

/** The user key usage is charged to when a run has nobody to charge (a schedule the agent made): it still counts for everyone. */
export const UNATTRIBUTED = 'unattributed';

/** The key a person's usage is stored under: `slack:U123`, `discord:<id>`, `console:you`. */
export function payerKey(platform: string, userId: string): string {
  return `${platform}:${userId}`;
}

/** Who pays for a run: the platform and user id, or null when nobody can be charged. */
export interface Payer {
  readonly platform: string;
  readonly userId: string;
}

/** Token budgets (`limits` of the configuration file) over recorded usage. */
export interface Budget {
  readonly limits: LimitsSettings;
  /** The private note for a new request past a daily budget, or null when it may go ahead. Memory only on the hot path. */
  refusalFor(person: Pick<Person, 'platform' | 'userId'>): string | null;
  /** Which daily budget, if any, is used up for this payer now. */
  dailyStop(payer: Payer | null): Exclude<BudgetStop, { scope: 'run' }> | null;
  /** The budget of one run: `spent` is what it used before (a resumed run). */
  forRun(runId: string, payer: Payer | null, spent: number): RunBudget;
}

export interface BudgetDeps {
  store: UsageStore;
  limits: LimitsSettings;
  now(): number;
}

/** Today's totals, loaded lazily (one indexed lookup each) and kept up to date by every record. */
interface DayCache {
  day: string;
  team: number | null;
  users: Map<string, number>;
}

const sum = (t: TokenUsage) => t.promptTokens + t.completionTokens;

/**
 * Creates the budget. Daily checks run on every inbound message, so today's totals live in memory:
 * a person's first message of the day costs one primary-key lookup, later ones none; each recorded
 * response updates the cache in the same call that writes it. One process owns the database
 * (SQLite with a process lock), so the cache cannot go stale behind its back.
 */
export function createBudget(deps: BudgetDeps): Budget {
  const { store, limits } = deps;
  const daily = limits.tokensPerUserPerDay !== undefined || limits.tokensPerDay !== undefined;
  let cache: DayCache = { day: '', team: null, users: new Map() };

  const today = (now: number): DayCache => {
    const day = utcDay(now);
    if (cache.day !== day) cache = { day, team: null, users: new Map() };
    return cache;
  };
  const userTokens = (c: DayCache, key: string): number => {
    let v = c.users.get(key);
    if (v === undefined) {
      v = sum(store.userDay(c.day, key));
      c.users.set(key, v);
    }
    return v;
  };
  const teamTokens = (c: DayCache): number => (c.team ??= sum(store.teamDay(c.day)));

  const dailyStop: Budget['dailyStop'] = (payer) => {
    if (!daily) return null;
    const now = deps.now();
    const c = today(now);
    if (payer && limits.tokensPerUserPerDay !== undefined) {
      const used = userTokens(c, payerKey(payer.platform, payer.userId));
      if (used >= limits.tokensPerUserPerDay) return { scope: 'user_day', used, limit: limits.tokensPerUserPerDay, userId: payer.userId, resetsInMs: msUntilUtcMidnight(now) };
    }
    if (limits.tokensPerDay !== undefined) {
      const used = teamTokens(c);
      if (used >= limits.tokensPerDay) return { scope: 'team_day', used, limit: limits.tokensPerDay, resetsInMs: msUntilUtcMidnight(now) };
    }
    return null;
  };

  return {
    limits,
    dailyStop,
    refusalFor(person) {
      if (!daily) return null;
      const stop = dailyStop({ platform: person.platform, userId: person.userId });
      return stop ? dailyRefusalText(stop) : null;
    },
    forRun(runId, payer, spentBefore) {
      let spent = spentBefore;
      const key = payer ? payerKey(payer.platform, payer.userId) : UNATTRIBUTED;
      return {
        record(usage) {
          const c = today(deps.now());
          spent = store.record(runId, c.day, key, usage);
          const tokens = sum(usage);
          const known = c.users.get(key);
          if (known !== undefined) c.users.set(key, known + tokens);
          if (c.team !== null) c.team += tokens;
        },
        spent: () => spent,
        exceeded() {
          if (limits.tokensPerRun !== undefined && spent > limits.tokensPerRun) return { scope: 'run', used: spent, limit: limits.tokensPerRun };
          return dailyStop(payer);
        },
      };
    },
  };
}
