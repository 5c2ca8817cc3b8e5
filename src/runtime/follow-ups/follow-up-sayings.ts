import { refusalText } from '../../access/access-policy.js';
import type { ConversationRef } from '../../chat/conversation-ref.js';
import type { RunOutcome } from './follow-up-runs.js';
import type { StoredMessage } from './stored-message.js';
import { notices } from '../../runs/run-notices.js';

/**
 * One thing the follow-up of a message says: a note in the thread, a line only its person sees (in a
 * conversation Errand holds, or, when access is refused, where it holds none), or the "busy elsewhere" note
 * that is said only if the task still waits a little later.
 */
export type Saying =
  | { readonly to: 'thread'; readonly conversationId: string; readonly text: string }
  | { readonly to: 'person'; readonly conversationId: string; readonly userId: string; readonly text: string }
  | { readonly to: 'outsider'; readonly ref: ConversationRef; readonly userId: string; readonly text: string }
  | {
      readonly to: 'thread_if_still_waiting';
      readonly conversationId: string;
      readonly taskId: number;
      readonly text: string;
    };

/** What to say about a stored message, once its files are read (`fileNotes`) and the runs had their say. */
export function sayingsFor(
  { decision, ref, userId }: StoredMessage,
  outcome: RunOutcome,
  fileNotes: readonly string[],
): Saying[] {
  switch (decision.kind) {
    case 'refuse':
      return [{ to: 'person', conversationId: decision.conversationId, userId, text: decision.text }];
    case 'over_budget':
      return [{ to: 'person', conversationId: decision.conversationId, userId, text: decision.note }];
    case 'denied':
      return [{ to: 'outsider', ref, userId, text: refusalText(decision.reason) }];
    case 'answer':
      return [];
    case 'stop': {
      if (outcome.kind !== 'stopped') return [];
      const { stoppedRun, stoppedTaskId, cancelledPending } = outcome.stop;
      const text =
        stoppedRun || cancelledPending > 0
          ? notices.stopped(userId, stoppedTaskId, cancelledPending)
          : notices.nothingRunning;
      return [{ to: 'thread', conversationId: decision.conversationId, text }];
    }
    case 'task': {
      const { conversationId, taskId } = decision;
      const said: Saying[] = fileNotes.length > 0 ? [{ to: 'thread', conversationId, text: fileNotes.join('\n') }] : [];
      if (outcome.kind !== 'started') return said;
      const { start, stillPending } = outcome;
      if ((start.kind === 'started' && start.taskId === taskId) || start.kind === 'stopping' || !stillPending)
        return said;
      if (decision.awaitingApproval)
        return [...said, { to: 'thread', conversationId, text: notices.queuedBehindApproval(taskId) }];
      if (!decision.busy && start.kind === 'busy_global') {
        const text = notices.queued(taskId, "I'm busy in other conversations and will start on it as soon as I can.");
        return [...said, { to: 'thread_if_still_waiting', conversationId, taskId, text }];
      }
      const why =
        decision.busy || start.kind === 'busy_conversation' || start.kind === 'started'
          ? "I'll start on it when I finish what I'm doing here."
          : 'It is waiting for the tasks ahead of it.';
      return [...said, { to: 'thread', conversationId, text: notices.queued(taskId, why) }];
    }
  }
}
