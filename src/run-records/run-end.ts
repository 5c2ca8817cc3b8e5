import type { RunStatus } from '../db/schema.js';

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
