import { refusalText, type AccessPolicy } from '../../access/access-policy.js';
import { clickAnswers } from '../../agent/question-identity.js';
import type { Clock } from '../../clock.js';
import type { CommandReply, InboundAction } from '../../chat/inbound.js';
import { conversationKey } from '../../chat/conversation-ref.js';
import type { CommandDeps } from '../../commands/command-deps.js';
import { announceStop } from '../../commands/stop-command.js';
import type { ConversationStore } from '../../conversations/conversation-store.js';
import type { Logger } from '../../logger.js';
import type { RunStore } from '../../runs/run-store.js';
import type { Authority } from '../../runs/authority.js';
import type { EventDedupe } from '../../store/event-dedupe.js';
import { personOf } from '../../access/access-policy.js';
import type { RunCoordinator } from './run-coordinator.js';
import { notices } from '../../runs/run-notices.js';

/** A click on a run's own buttons: its Stop button, or an answer to its question or approval. */
export type RunButton = Exclude<InboundAction, { kind: 'schedule' | 'private_answer' }>;

export interface RunButtonDeps {
  runs: RunStore;
  conversations: ConversationStore;
  dedupe: EventDedupe;
  coordinator: Pick<RunCoordinator, 'answer' | 'stopConversation'>;
  commands: CommandDeps;
  access: AccessPolicy;
  authority: Authority;
  clock: Clock;
  logger: Logger;
}

/**
 * Handles a click on a run's button: who may click it, whether it still means anything (the run finished,
 * the question was answered, the button is left from an earlier question), then the stop or the answer.
 * Returns what only the clicker is told, or null.
 */
export async function handleRunButton(action: RunButton, deps: RunButtonDeps): Promise<CommandReply | null> {
  const run = await deps.runs.get(action.runId);
  if (!run) return { text: 'That run no longer exists.' };
  const ref = deps.conversations.refOf(run.conversationId);
  // A click from somewhere else (a private run's question, answered in its person's DM) counts where the run is.
  const elsewhere =
    ref !== null && action.conversation !== null && conversationKey(action.conversation) !== run.conversationId;
  const where = elsewhere ? ref : (action.conversation ?? ref);
  if (!where) return { text: 'That run no longer exists.' };
  const person = personOf(where.platform, action.userId, action.roles);
  const verdict = deps.access.check(person, {
    platform: where.platform,
    channel: where.channel,
    direct: !elsewhere && action.direct === true,
  });
  if (!verdict.allowed) {
    deps.logger.info(
      {
        platform: where.platform,
        channel: where.channel,
        userId: action.userId,
        action: action.kind,
        reason: verdict.reason,
      },
      'access refused',
    );
    return { text: refusalText(verdict.reason) };
  }
  if (action.kind === 'stop') {
    if (run.status !== 'running' && run.status !== 'waiting_user') return { text: 'That run has already finished.' };
    if (!(await deps.authority.mayStop(run.conversationId, person))) return { text: notices.notAllowedToStop };
    const r = await deps.coordinator.stopConversation(run.conversationId, false);
    if (r.stoppedRun) announceStop(deps.commands, run.conversationId, action.userId, r.stoppedTaskId, 0);
    return null;
  }
  if (
    !(await deps.dedupe.firstSight(
      `action:${where.platform}:${where.workspace}:${where.channel}:${action.eventId}`,
      deps.clock.now(),
    ))
  )
    return null;
  if (run.status !== 'waiting_user') return { text: notices.alreadyAnswered };
  // A button answers only its own question: one left on an earlier question (or approval) of this run,
  // or posted before buttons named their question, changes nothing and its clicker is told privately.
  if (action.questionId === null) return { text: notices.oldButton };
  if (!clickAnswers(run.question, action.questionId)) return { text: notices.alreadyAnswered };
  if (!deps.authority.mayAnswer(run.question, person)) {
    const owner = run.question?.userId ?? '';
    return { text: run.question?.approval ? notices.notAllowedToDecide(owner) : notices.notAllowedToAnswer(owner) };
  }
  // Kept with the run only while that very question still waits unanswered, so a click racing a typed
  // answer (and the next question it leads to) cannot land on the next one; then delivered from the run.
  if (
    !(await deps.runs.recordAnswer(
      run.id,
      { text: action.answer, userId: action.userId, source: 'click' },
      action.questionId,
    ))
  )
    return { text: notices.alreadyAnswered };
  const answered = await deps.runs.get(run.id);
  if (!answered || answered.status !== 'waiting_user' || !(await deps.coordinator.answer(answered, null, null))) {
    // Recorded answers are due at once: whoever resumes the run (here or another process) delivers it.
    deps.logger.debug({ runId: run.id }, 'a clicked answer is kept with its run until it resumes');
  }
  return null;
}
