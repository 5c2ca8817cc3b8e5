import type { ClusterMembership } from '../../runs/runtime/cluster-membership.js';
import type { InterruptedRun } from '../restarts/recovery.js';

/**
 * How the cluster keeps this process's armed schedules in step with the ones other processes change:
 * implemented by the Scheduler (src/schedules/scheduler.ts).
 */
export interface ScheduleSync {
  /** Another process changed (or deleted) schedule `scheduleId`: read it again and re-arm or disarm it. */
  refresh(scheduleId: number): Promise<void>;
  /**
   * The safety net for lost wake-ups: arm every active schedule due within `withinMs` (or overdue) that is
   * not armed here at its stored time.
   */
  review(withinMs: number): Promise<void>;
}

/** What the cluster asks of the app. */
export interface ClusterHooks {
  /** Starts whatever work is ready, while this process has free slots. */
  pump(): Promise<unknown>;
  /** Recovers every `running` run at once; only right when this is the only process (all of them died with it). */
  recoverAll(): Promise<InterruptedRun[]>;
  /** Recovers one run taken over from a dead process (this process won it); null when it had ended meanwhile. */
  recoverRun(runId: string): Promise<InterruptedRun | null>;
  /** An answer was recorded on another process (`answer` wake-up): questions whose calls wait here look for theirs. */
  answered?(conversationId: string): void;
  /** This process's scheduler, told of schedules changed elsewhere; absent where nothing is scheduled. */
  schedules?: ScheduleSync;
}

/**
 * How this process shares the work with other Errand processes on the same database. The core talks
 * only to this interface: one process on SQLite uses the local implementation (nothing is shared), and
 * processes on PostgreSQL use cluster/cluster-runtime.ts (leases, takeover, LISTEN/NOTIFY wake-ups).
 */
export interface Cluster extends ClusterMembership {
  /** Recovers the runs that died with their process; at start, before any adapter delivers an event. */
  recover(hooks: ClusterHooks): Promise<InterruptedRun[]>;
  /** Starts keeping leases, taking over dead processes' runs and listening for wake-ups. */
  start(hooks: ClusterHooks): Promise<void>;
  /** Stops all that; runs still executing are left to the coordinator's shutdown. */
  stop(): Promise<void>;
}

/**
 * The single-process cluster: every `running` run at start died with this process's predecessor, runs
 * are never taken over or stopped from elsewhere, and nobody else needs waking.
 */
export function createLocalCluster(): Cluster {
  return {
    recover: (hooks) => hooks.recoverAll(),
    start: async () => undefined,
    stop: async () => undefined,
    runStarted: () => undefined,
    runEnded: () => undefined,
    wake: () => undefined,
  };
}
