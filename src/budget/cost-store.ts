import type { ModelCharge } from './budget-stop.js';

/** One model's usage over a window (and, when asked per person, whose). */
export interface ModelTotals {
  readonly model: string;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly cachedTokens: number;
  readonly usd: number;
}

/** Usage per model and what it cost: the `usage_model_daily` and `run_costs` tables. */
export interface CostStore {
  /** Adds one response's charge to `user`'s `day` for its model and to the run's cost, in one transaction; returns the run's new cost. */
  record(runId: string, day: string, user: string, charge: ModelCharge): Promise<number>;
  /** What a run has cost so far (0 when nothing was charged). */
  runUsd(runId: string): Promise<number>;
  /** One person's dollars on one day (a range of the primary key). */
  userDayUsd(day: string, user: string): Promise<number>;
  /** Everyone's dollars on one day. */
  teamDayUsd(day: string): Promise<number>;
  /** One person's dollars from `fromDay` on (the user index). */
  userUsdSince(user: string, fromDay: string): Promise<number>;
  /** Usage per model from `fromDay` on, the most expensive first (then most tokens); only `user`'s when given. */
  modelsSince(fromDay: string, user: string | null): Promise<ModelTotals[]>;
}
