/**
 * What the desk asks of the runs its questions belong to (implemented in questions/runtime/elicitation-waits.ts, where
 * the run coordinator is): the desk sits below the runtime and reaches it only through this.
 */
export interface ElicitationRuns {
  /**
   * Whether the run was stopped (cancelled). A question whose call is aborted for any other reason (this process
   * shutting down, or losing the run to another) stays open: the restart or the new owner carries it over.
   */
  stopped(runId: string): Promise<boolean>;
  /**
   * A carried-over question was settled (`state`, by `userId`): the run that waits on it is resumed, on whichever
   * process has a free slot. False when the run waits on it no more (stopped, timed out, or answered already).
   */
  settled(
    runId: string,
    questionId: string,
    state: 'answered' | 'declined' | 'cancelled',
    userId: string | null,
  ): Promise<boolean>;
  /** Tells the other processes a question in `conversationId` was settled here, so the one holding its call looks at once. */
  wake(conversationId: string): void;
}
