/** Why this process must give up a run it is executing. */
export type RunLoss = 'stopped' | 'taken_over';

/**
 * What brings work to another process: a task queued, an answer recorded, a run stopped (keyed by the
 * conversation), or a schedule created, changed or deleted (keyed by the schedule's id, as a string).
 */
export type ClusterWake = 'task' | 'answer' | 'stop' | 'schedule';

/** What the run coordinator tells the cluster about the runs it executes. */
export interface ClusterMembership {
  /**
   * A run starts (or resumes) executing in this process: it is ours until it ends. `lose` is called
   * when that stops being true — someone stopped it from another process (`stopped`), or another
   * process took it over (`taken_over`, settled there): abort it here without settling it. `claimedBy` is the
   * owner its claim wrote (the fence's): when that is this process, the claim wrote its lease too.
   */
  runStarted(runId: string, conversationId: string, lose: (why: RunLoss) => void, claimedBy?: string | null): void;
  /** The run's loop in this process has ended (settled, parked or aborted). */
  runEnded(runId: string): void;
  /** Tells the other processes there is work for `conversationId`. Call it after the commit that made it true. */
  wake(kind: ClusterWake, conversationId: string): void;
}
