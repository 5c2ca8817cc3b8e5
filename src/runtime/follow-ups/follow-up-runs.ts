import type { StopResult } from '../../commands/command-deps.js';
import type { Logger } from '../../logger.js';
import type { RunStore } from '../../run-records/run-store.js';
import type { TaskService } from '../../tasks/task-service.js';
import type { Decision } from './stored-message.js';
import type { RunCoordinator, StartResult } from '../../runs/runtime/run-coordinator.js';

/** What the run side did about a stored message: all the follow-up needs to say what happened. */
export type RunOutcome =
  | { readonly kind: 'stopped'; readonly stop: StopResult }
  | { readonly kind: 'started'; readonly start: StartResult; readonly stillPending: boolean }
  | { readonly kind: 'nothing' };

export interface FollowUpRunsDeps {
  runs: Pick<RunStore, 'get'>;
  tasks: Pick<TaskService, 'get'>;
  coordinator: Pick<RunCoordinator, 'answer' | 'startNext' | 'startClaimed' | 'stopConversation'>;
  logger: Logger;
}

/**
 * Carries a stored message's decision to the runs: a stop stops, an answer resumes its run, a task is started
 * (or stays queued). Nothing is said here; the outcome tells the follow-up what to say.
 */
export async function carryToRuns(
  decision: Exclude<Decision, { kind: 'duplicate' }>,
  deps: FollowUpRunsDeps,
): Promise<RunOutcome> {
  switch (decision.kind) {
    case 'stop':
      return { kind: 'stopped', stop: await deps.coordinator.stopConversation(decision.conversationId, decision.all) };
    case 'answer': {
      const run = await deps.runs.get(decision.runId);
      // The recorded answer is delivered from the run itself; a resume that finds no slot keeps it there.
      if (!run || run.status !== 'waiting_user' || !(await deps.coordinator.answer(run, null, null))) {
        deps.logger.warn({ runId: decision.runId }, 'answer arrived for a run that is no longer waiting');
      }
      return { kind: 'nothing' };
    }
    case 'task': {
      const { claim } = decision;
      const start = claim
        ? await deps.coordinator.startClaimed(decision.conversationId, claim.hold, claim.claimed)
        : await deps.coordinator.startNext(decision.conversationId);
      // A claim running beside this one (a pump after another run ended) may have started the task itself.
      const stillPending =
        start.kind !== 'busy_conversation' || (await deps.tasks.get(decision.taskId))?.status === 'pending';
      return { kind: 'started', start, stillPending };
    }
    default:
      return { kind: 'nothing' };
  }
}
