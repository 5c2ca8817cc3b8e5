import type { StopResult } from '../../commands/command-deps.js';
import type { RunExecution } from './run-execution.js';
import type { NextClaims } from './next-claims.js';
import { showSession } from './session-shown.js';

/** What a stop reaches: the runs executing and claimed here, the claims in settlements, and the pump. */
export interface StopParts {
  readonly execution: Pick<RunExecution, 'deps' | 'settler' | 'active'>;
  readonly claiming: ReadonlySet<string>;
  readonly stoppedBeforeLaunch: Map<string, string>;
  readonly next: Pick<NextClaims, 'stoppedElsewhere'>;
  pump(conversationId: string): Promise<number>;
}

/** Stops the conversation's active run (and with `all` its pending tasks). Takes effect at once (RunCoordinator.stopConversation). */
export async function stopConversationRun(parts: StopParts, conversationId: string, all: boolean): Promise<StopResult> {
  const { deps, settler, active } = parts.execution;
  const { runs, tasks } = deps.data;
  // Pending tasks go first: once the stopped run's task is cancelled its end may start the next one.
  const cancelledPending = all ? await tasks.cancelPending(conversationId) : 0;
  const run = await runs.active(conversationId);
  let stoppedTaskId: number | null = null;
  if (
    run &&
    (await runs.transition(run.id, ['running', 'waiting_user'], 'cancelled', { error: 'stopped by a user' }))
  ) {
    settler.countEnd('cancelled', run);
    const entry = active.get(conversationId);
    if (entry && entry.runId === run.id) {
      entry.reason = 'stop';
      entry.controller.abort();
    } else {
      // A run's settlement under way here may have claimed it: that claim is not launched (next-claims.ts).
      parts.next.stoppedElsewhere(run.id);
      if (parts.claiming.has(conversationId)) {
        parts.stoppedBeforeLaunch.set(conversationId, run.id);
      } else {
        // Executing in another process (or nowhere): the cancelled row is the record; its owner aborts it when woken.
        deps.cluster?.wake('stop', conversationId);
      }
    }
    // Not executing here, so no end of it here shows its thread's session idle: shown now (an owner elsewhere shows it too).
    if (entry?.runId !== run.id)
      showSession(
        { presence: deps.platforms.presence, conversations: deps.data.conversations, logger: deps.logger },
        conversationId,
        'idle',
      );
    // Stop means stop: the rest of a long answer the platform has not taken yet is not posted.
    const dropped = await deps.data.posts.dropUnsent(run.id);
    if (dropped > 0) deps.logger.debug({ runId: run.id, dropped }, 'unsent pieces of a stopped run dropped');
    stoppedTaskId = run.taskId;
    if (run.taskId !== null) await tasks.cancel(conversationId, run.taskId);
  }
  if (!active.has(conversationId)) await parts.pump(conversationId);
  return { stoppedTaskId, stoppedRun: run !== null, cancelledPending };
}
