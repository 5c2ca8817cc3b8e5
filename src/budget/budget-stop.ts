/**
 * Why a run may not call the model (again): the vocabulary shared by the budget, the agent loop and
 * the notes, with no dependency on how usage is stored.
 */
export type BudgetStop =
  | { readonly scope: 'run'; readonly unit: BudgetUnit; readonly used: number; readonly limit: number }
  | {
      readonly scope: 'user_day';
      readonly unit: BudgetUnit;
      readonly used: number;
      readonly limit: number;
      /** The person whose budget it is (platform user id), as notes mention them. */
      readonly userId: string;
      readonly resetsInMs: number;
    }
  | {
      readonly scope: 'team_day';
      readonly unit: BudgetUnit;
      readonly used: number;
      readonly limit: number;
      readonly resetsInMs: number;
    };

/** What a budget counts: tokens (`tokensPer…` limits) or dollars at the configured prices (`usdPer…`). */
export type BudgetUnit = 'tokens' | 'usd';

/** Tokens one model response used, as the endpoint reported them. */
export interface TokenUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** The part of `promptTokens` the endpoint served from its prompt cache, when it says so. */
  readonly cachedTokens?: number;
  /** The model the request asked for (prices are keyed by it); absent: the usage is not priced. */
  readonly model?: string;
}

/** One response's usage as charged: its model, tokens and dollars. */
export interface ModelCharge {
  readonly model: string;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly cachedTokens: number;
  readonly usd: number;
}

/**
 * The budget of one run, as the agent loop sees it: it records each response's usage and asks,
 * before every model call, whether it may make it. Implemented by src/budget/budget.ts.
 */
/**
 * A transaction a usage record joins (a Store's `atomically` tx), so the charge commits with what
 * the response produced, in one write instead of two.
 */
export interface UsageTransaction {
  readonly usage: { record(runId: string, day: string, user: string, usage: TokenUsage): Promise<number> };
  readonly cost: { record(runId: string, day: string, user: string, charge: ModelCharge): Promise<number> };
  afterCommit(fn: () => void): void;
}

export interface RunBudget {
  /** Charges one response's tokens to the run and its payer's day: one write, or part of `within`'s. */
  record(usage: TokenUsage, within?: UsageTransaction): Promise<void>;
  /** Tokens the run has used so far. */
  spent(): number;
  /** Dollars the run has cost so far (as far as this execution knows: a resumed run's earlier cost is read at its first check). */
  spentUsd(): number;
  /** Why the run must stop before its next model call, or null when it may go on. */
  exceeded(): Promise<BudgetStop | null>;
  /**
   * `record` for a write the caller sends itself (PostgreSQL's one-statement answer, RunPosts.writeAnswer): what
   * to charge, and `recorded` to call with the run's totals that write returned once it is committed. Absent: `record`.
   */
  charge?(usage: TokenUsage): PendingCharge;
}

/** One response's charge as a write of the caller's records it (see RunBudget.charge). */
export interface PendingCharge {
  /** The UTC day and the payer's key it is charged to, as `record` would. */
  readonly day: string;
  readonly user: string;
  readonly usage: TokenUsage;
  readonly charge: ModelCharge;
  /** The write committed: the run's tokens and dollars so far, as it returned them. */
  recorded(runTokens: number, runUsd: number): void;
}
