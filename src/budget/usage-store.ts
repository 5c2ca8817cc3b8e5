import type { TokenUsage } from './budget-stop.js';

/** Tokens over a span, split as the endpoint reports them. */
export interface TokenTotals {
  readonly promptTokens: number;
  readonly completionTokens: number;
}

/** One person's tokens over a window. */
export interface UserTotals extends TokenTotals {
  readonly user: string;
}

/** Token usage: the `usage_daily` table and the `tokens` column of runs. */
export interface UsageStore {
  /** Adds one response's tokens to the run and to `user`'s `day`, in one transaction; returns the run's new total. */
  record(runId: string, day: string, user: string, usage: TokenUsage): Promise<number>;
  /** One person's tokens on one day (a primary-key lookup). */
  userDay(day: string, user: string): Promise<TokenTotals>;
  /** Everyone's tokens on one day (a range of the primary key). */
  teamDay(day: string): Promise<TokenTotals>;
  /** One person's tokens from `fromDay` on (the user index). */
  userSince(user: string, fromDay: string): Promise<TokenTotals>;
  teamSince(fromDay: string): Promise<TokenTotals>;
  /** The heaviest users from `fromDay` on, most tokens first. */
  topUsersSince(fromDay: string, limit: number): Promise<UserTotals[]>;
}
