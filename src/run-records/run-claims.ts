import type { RunRow, TaskRow } from '../db/schema.js';
import type { RunFence } from './run-fence.js';

/** A task claimed for execution with its new run, and the fence every write of that run is conditional on. */
export interface TaskWithRun {
  task: TaskRow;
  run: RunRow;
  fence: RunFence;
}

/**
 * A claim as one store call (issue 40: on PostgreSQL one function call instead of a transaction of five
 * statements): the conversation's row lock (unless the transaction holds it), no active run there, the next ready
 * task in progress, its run row (owner, lease and generation as `RunStore.create` writes them) and, on the task's
 * first attempt, its goal message. A store without it claims with those calls one by one (run-claim.ts).
 */
export interface RunClaims {
  /**
   * Null: nothing ready, or a run is active there. `knownIdle`: the caller found no active run in this same
   * transaction after taking the conversation's row, so none is looked for. Throws ConversationBusyError when
   * another run started there first (the caller's transaction rolls back).
   */
  claimNext(conversationId: string, knownIdle: boolean): Promise<TaskWithRun | null>;
}
