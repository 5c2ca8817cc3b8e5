import type { RunRow, TaskRow } from '../../db/schema.js';
import { ConversationBusyError } from '../../run-records/conversation-busy-error.js';
import type { RunFence } from '../../run-records/run-fence.js';
import type { Store } from '../../store/store.js';
import { goalMessage } from '../goal-message.js';

/** A task claimed for execution: the task in progress, its new run, and the fence every write of the run is conditional on. */
export interface ClaimedTask {
  task: TaskRow;
  run: RunRow;
  fence: RunFence;
}

/** The conversation and a slot taken for a claim until its run is launched (or the hold is let go). */
export interface SlotHold {
  /** Launches the claimed run and lets the hold go. */
  launch(claimed: ClaimedTask): { readonly kind: 'started'; readonly taskId: number };
  /** Lets the hold go without a launch; a second call does nothing. */
  release(): void;
}

/**
 * Claims the conversation's next ready task in one transaction: task → in_progress, a run row acting for the
 * task's principal, the goal in the transcript on the first attempt, and the run's fence. Null: nothing ready,
 * or a run is active there already; 'busy': another process (or flow) started a run there first and this claim
 * rolled back.
 */
export async function claimNextTask(
  store: Pick<Store, 'atomically' | 'claims'>,
  conversationId: string,
): Promise<ClaimedTask | 'busy' | null> {
  try {
    // One call where the store has it (PostgreSQL: a transaction of its own); else a transaction of several.
    if (store.claims) return await store.claims.claimNext(conversationId, false);
    return await store.atomically((tx) => claimIn(tx, conversationId));
  } catch (err) {
    if (err instanceof ConversationBusyError) return 'busy';
    throw err;
  }
}

/**
 * The claim's writes inside a transaction already open: `claimNextTask`'s own, or the one that stored the
 * message asking for the task (one commit for both). `knownIdle`: the caller found no active run in this same
 * transaction, after taking the conversation's row, so none can have started since.
 */
export async function claimIn(tx: Store, conversationId: string, knownIdle = false): Promise<ClaimedTask | null> {
  if (tx.claims) return tx.claims.claimNext(conversationId, knownIdle);
  if (!knownIdle && (await tx.runs.active(conversationId))) return null;
  const task = await tx.tasks.claimNext(conversationId);
  if (!task) return null;
  // The run acts for its task's principal, stored with it so a resume or a takeover reads the same person.
  const run = await tx.runs.create(
    conversationId,
    task.id,
    task.requestedBy !== null ? { userId: task.requestedBy, roles: task.requesterRoles } : null,
  );
  if (task.attempts === 1) {
    await tx.transcript.append({
      conversationId,
      runId: run.id,
      role: 'user',
      content: goalMessage(task),
      authorId: task.requestedBy,
      platformMessageId: task.sourceMessageId,
      images: task.images,
    });
  }
  // Read in the claiming transaction: the owner and generation every write of this execution is conditional on.
  return { task, run, fence: await tx.runs.fence(run.id) };
}
