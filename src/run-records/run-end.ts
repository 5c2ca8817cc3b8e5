import type { RunStatus } from '../db/schema.js';
import type { TaskWithRun } from './run-claims.js';

/**
 * A run's end as one write (`RunStore.settle`): its final transition and, while its task is still in progress,
 * the task's finish. What the settlement decided (runs/runtime/run-settlement.ts), without a note for the
 * thread: a note is an outbox row, recorded in the settling transaction of the general path.
 */
export interface RunEnd {
  readonly conversationId: string;
  /** The statuses the run may end from, as `RunStore.transition`'s `from`. */
  readonly from: readonly RunStatus[];
  /** A final status (run-store.ts's FinalRunStatus). */
  readonly to: Exclude<RunStatus, 'running' | 'waiting_user'>;
  readonly summary?: string | null;
  readonly error?: string;
  /** The run's task and how it finishes: applied only while the task is in progress. */
  readonly task: { readonly id: number; readonly finish: RunEndTaskFinish } | null;
}

/** How a settled run's task finishes (a requeue has a note, so it takes the general path). */
export type RunEndTaskFinish = { kind: 'complete'; summary: string } | { kind: 'fail'; reason: string };

/**
 * What `RunStore.settle` did: `settled` (the run ended; its task finished if it was in progress), `unchanged` (the
 * fence holds but the run was no longer in `from`: nothing written), `fenced` (another process owns the run
 * now: nothing written).
 */
export type RunEndAnswer = 'settled' | 'unchanged' | 'fenced';

/**
 * What a run's settlement asks to claim after it (`RunStore.settleNext`): the ended run's conversation goes first,
 * as the pump's `prefer`; these say what else the pump would look at once the run has left its slot.
 */
export interface NextAsk {
  /** The slots open once the ended run has left its own (at least that one): how many ready conversations count. */
  readonly slots: number;
  /** The conversations busy in the calling process besides the ended run's: neither claimed nor counted. */
  readonly exclude: ReadonlySet<string>;
}

/** What `RunStore.settleNext` did: the end, and what it claimed for the caller when the run settled. */
export interface SettledNext {
  readonly answer: RunEndAnswer;
  /** The next task claimed for the caller, its run and fence (null: nothing claimed; always null unless settled). */
  readonly claimed: TaskWithRun | null;
  /**
   * Whether the pump may have more to start: a waiting run is due to resume, more conversations were ready than
   * the one claimed, the claim found nothing after all, or the run did not settle (nothing was read).
   */
  readonly more: boolean;
}
