import type { BudgetStop } from '../budget/budget-stop.js';
import type { PendingQuestion } from '../records/stored-values.js';

/** How a run's loop ended; the coordinator turns it into statuses and notes. */
export type RunOutcome =
  | { kind: 'completed'; summary: string | null }
  | { kind: 'waiting'; question: PendingQuestion }
  | { kind: 'aborted' }
  | { kind: 'step_limit'; steps: number }
  | { kind: 'failed'; reason: string; transient: boolean }
  /** A post failed because its channel or thread is gone for good: the run stopped there. */
  | { kind: 'target_gone'; reason: string }
  /** A token budget ran out before the next model call; `runTokens` is what this run used (0: it never called the model). */
  | { kind: 'over_budget'; stop: BudgetStop; runTokens: number };
