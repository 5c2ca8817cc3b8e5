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
  /**
   * The private note for a new request past a daily budget, or null when it may go ahead. On the
   * acknowledgement path: from memory for one process; one indexed read (two with the team limit) when
   * processes share the store.
   */
  refusalFor(person: Pick<Person, 'platform' | 'userId'>): Promise<string | null>;
  /** Which daily budget, if any, is used up for this payer now. */
  dailyStop(payer: Payer | null): Promise<Exclude<BudgetStop, { scope: 'run' }> | null>;
  /** The budget of one run: `spent` is what it used before (a resumed run). */
  forRun(runId: string, payer: Payer | null, spent: number): RunBudget;
}

export interface BudgetDeps {
  store: UsageStore;
  limits: LimitsSettings;
  now(): number;
  /**
   * Other processes charge the same store (PostgreSQL with DATABASE_URL): then every daily check reads the
   * stored totals, since this process's memory sees only its own spending. Default false: one process
   * owns the database (SQLite) and today's totals are kept in memory.
   */
  shared?: boolean;
}

/** Today's totals, loaded lazily (one indexed lookup each) and kept up to date by every record. */
interface DayCache {
  day: string;
  team: number | null;
  users: Map<string, number>;
  /** Responses recorded today so far (a load compares it before and after its read). */
  records: number;
}

const sum = (t: TokenUsage) => t.promptTokens + t.completionTokens;

/**
 * Creates the budget. Daily checks run on every inbound message. With one process owning the database
 * (SQLite with a process lock), today's totals live in memory: a person's first message of the day costs
 * one primary-key lookup, later ones none; each recorded response updates the cache in the same call that
 * writes it, and nothing else writes behind its back. With processes sharing the database (`shared`), the
 * stored usage is the truth for every check: each reads it (the person's row by primary key, the team's
 * day as a range of it), and memory is only a lower bound that spares the read once a limit is known to
 * be passed (usage only grows within a day).
 */
export function createBudget(deps: BudgetDeps): Budget {
  const { store, limits } = deps;
  const shared = deps.shared === true;
  const daily = limits.tokensPerUserPerDay !== undefined || limits.tokensPerDay !== undefined;
  let cache: DayCache = { day: '', team: null, users: new Map(), records: 0 };

  const today = (now: number): DayCache => {
    const day = utcDay(now);
    if (cache.day !== day) cache = { day, team: null, users: new Map(), records: 0 };
    return cache;
  };
  /**
   * One process: from memory once loaded; a load that a record overtook is used once but not kept (it may
   * have missed that record). Shared store: read at each check unless memory already reaches `limit`.
   */
  const userTokens = async (c: DayCache, key: string, limit: number): Promise<number> => {
    const known = c.users.get(key);
    if (known !== undefined && (!shared || known >= limit)) return known;
    const before = c.records;
    const loaded = sum(await store.userDay(c.day, key));
    if (shared) {
      // Memory holds only what reads returned (records do not add to it here): each is a lower bound.
      const lowerBound = Math.max(loaded, c.users.get(key) ?? 0);
      c.users.set(key, lowerBound);
      return lowerBound;
    }
    if (c.records === before && !c.users.has(key)) c.users.set(key, loaded);
    return c.users.get(key) ?? loaded;
  };
  const teamTokens = async (c: DayCache, limit: number): Promise<number> => {
    if (c.team !== null && (!shared || c.team >= limit)) return c.team;
    const before = c.records;
    const loaded = sum(await store.teamDay(c.day));
    if (shared) {
      c.team = Math.max(loaded, c.team ?? 0);
      return c.team;
    }
    if (c.records === before) c.team ??= loaded;
    return c.team ?? loaded;
  };

  const dailyStop: Budget['dailyStop'] = async (payer) => {
    if (!daily) return null;
    const now = deps.now();
    const c = today(now);
    if (payer && limits.tokensPerUserPerDay !== undefined) {
      const used = await userTokens(c, payerKey(payer.platform, payer.userId), limits.tokensPerUserPerDay);
      if (used >= limits.tokensPerUserPerDay) return { scope: 'user_day', used, limit: limits.tokensPerUserPerDay, userId: payer.userId, resetsInMs: msUntilUtcMidnight(now) };
    }
    if (limits.tokensPerDay !== undefined) {
      const used = await teamTokens(c, limits.tokensPerDay);
      if (used >= limits.tokensPerDay) return { scope: 'team_day', used, limit: limits.tokensPerDay, resetsInMs: msUntilUtcMidnight(now) };
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
      const key = payer ? payerKey(payer.platform, payer.userId) : UNATTRIBUTED;
      return {
        async record(usage, within) {
          const c = today(deps.now());
          const tokens = sum(usage);
          const count = () => {
            // Shared store: a record may already be in a read that overtook this callback, so memory keeps reads only.
            if (shared) return;
            const known = c.users.get(key);
            if (known !== undefined) c.users.set(key, known + tokens);
            if (c.team !== null) c.team += tokens;
          };
          if (within) {
            spent = await within.usage.record(runId, c.day, key, usage);
            // Today's totals in memory change once the write is committed: a retried transaction records again.
            within.afterCommit(() => {
              c.records++;
              count();
            });
            return;
          }
          c.records++;
          spent = await store.record(runId, c.day, key, usage);
          count();
        },
        spent: () => spent,
        async exceeded() {
          if (limits.tokensPerRun !== undefined && spent > limits.tokensPerRun) return { scope: 'run', used: spent, limit: limits.tokensPerRun };
          return dailyStop(payer);
        },
      };
    },
  };
}
