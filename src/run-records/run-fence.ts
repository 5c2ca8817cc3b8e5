import { ErrandError } from '../errors.js';

/**
 * What a process holds while it executes a run: the run, the owner it was claimed for and the lease
 * generation of that claim. The generation goes up each time the run gets an owner (claimed, resumed,
 * adopted from another process, taken over), so a process that lost the run — even one that later got it
 * back — holds a fence that no longer matches. Every write of the run checks it in the same transaction
 * (`RunStore.holds`): a stale owner's write fails instead of recording a second answer.
 */
export interface RunFence {
  readonly runId: string;
  /** The owner written by the claim; null on a store that keeps no owners (SQLite: one process). */
  readonly owner: string | null;
  readonly generation: number;
}

/**
 * A write of a run was refused: the run has another owner or a newer claim now (this process stalled past
 * its lease and another took the run over). The write rolled back; the run must stop here at once, without
 * settling or posting, because its new owner is running it.
 */
export class RunFencedError extends ErrandError {
  readonly fence: RunFence;

  constructor(fence: RunFence) {
    super(
      'run_fenced',
      `run ${fence.runId} is no longer held by ${fence.owner ?? 'this process'} (lease generation ${fence.generation}): another process owns it now`,
    );
    this.fence = fence;
  }
}
