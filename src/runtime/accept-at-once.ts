import type { SlotHold } from '../runs/runtime/run-claim.js';
import type { AcceptedMention, MentionAccepts, MentionToAccept } from '../tasks/mention-accepts.js';
import type { Decision } from './follow-ups/stored-message.js';

/** A run there waits for an answer: the dispatcher decides what the message is, in the same transaction. */
export type WaitingRun = Extract<AcceptedMention, { kind: 'waiting' }>;

/**
 * A plain request stored with the store's one-call accept (PostgreSQL, issue 40): the dispatcher's decision for
 * it, as its separate calls would make it, or the waiting run it must decide against itself. `hold` (a slot
 * taken for this conversation, or null) is asked to claim the task; it is let go here unless the decision
 * carries it (the task was stored and nothing ran there).
 */
export async function acceptAtOnce(
  mentions: MentionAccepts,
  mention: Omit<MentionToAccept, 'claim'>,
  hold: SlotHold | null,
): Promise<Decision | WaitingRun> {
  const accepted = await mentions.accept({ ...mention, claim: hold !== null });
  if (accepted.kind === 'task' && accepted.active === null && hold !== null) {
    const claim = { hold, claimed: accepted.claimed };
    return { ...taskOf(accepted), busy: false, claim };
  }
  hold?.release();
  if (accepted.kind === 'task') return { ...taskOf(accepted), busy: accepted.active !== null, claim: null };
  return accepted;
}

/** The stored task's decision but for what depends on the run there: no files, no approval awaited. */
function taskOf(accepted: Extract<AcceptedMention, { kind: 'task' }>) {
  const { conversationId, task } = accepted;
  return { kind: 'task' as const, conversationId, taskId: task.id, awaitingApproval: false, files: null };
}
