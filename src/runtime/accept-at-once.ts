import type { SlotHold } from '../runs/runtime/run-claim.js';
import type { MentionAccepts, MentionToAccept } from '../tasks/mention-accepts.js';
import type { Decision } from './follow-ups/stored-message.js';

/**
 * A plain request stored with the store's one-call accept (PostgreSQL, issue 40), a transaction of its own: the
 * dispatcher's decision for it, as its separate calls would make it, or null when a run there waits for an answer
 * (nothing was written: the dispatcher decides with its separate calls). `hold` (a slot taken for this
 * conversation, or null) asks for the task's claim; it is let go here unless the decision carries it (the task
 * was stored and nothing ran there).
 */
export async function acceptAtOnce(
  mentions: MentionAccepts,
  mention: Omit<MentionToAccept, 'claim'>,
  hold: SlotHold | null,
): Promise<Decision | null> {
  const accepted = await mentions.accept({ ...mention, claim: hold !== null });
  if (accepted.kind === 'task' && accepted.active === null && hold !== null) {
    return { ...taskOf(accepted), busy: false, claim: { hold, claimed: accepted.claimed } };
  }
  hold?.release();
  if (accepted.kind === 'task') return { ...taskOf(accepted), busy: accepted.active !== null, claim: null };
  return accepted.kind === 'duplicate' ? accepted : null;
}

/** The stored task's decision but for what depends on the run there: no files, no approval awaited. */
function taskOf(accepted: Extract<Awaited<ReturnType<MentionAccepts['accept']>>, { kind: 'task' }>) {
  const { conversationId, task } = accepted;
  return { kind: 'task' as const, conversationId, taskId: task.id, awaitingApproval: false, files: null };
}
