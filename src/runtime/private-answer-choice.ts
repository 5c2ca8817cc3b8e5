import type { RunPosts } from '../agent/agent-types.js';
import type { CommandReply, InboundAction } from '../chat/inbound.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import { choiceReplies, keptPrivateNote } from '../privacy/private-answer-texts.js';
import type { Store } from '../store/store.js';

/** A Share in thread / Keep private click. */
export type PrivateAnswerClick = Extract<InboundAction, { kind: 'private_answer' }>;

export interface PrivateAnswerChoiceDeps {
  readonly store: Pick<Store, 'atomically' | 'privateAnswers'>;
  /** The shared answer, or the note that it was kept, is recorded in the outbox with the choice. */
  readonly posts: Pick<RunPosts, 'record'>;
  readonly clock: Clock;
  readonly logger: Logger;
}

/**
 * The owner's choice on an answer held for them (DESIGN.md "Private stays private in a shared thread"). Only the
 * owner may choose, not even an admin: the material is theirs and nobody else has seen it. The first choice wins,
 * recorded in one transaction with what it posts — the answer itself (Share; its transcript row becomes public, so
 * later runs of anyone see what is now in the thread), or a short note without it (Keep private) — so a restart or
 * another process cannot post it twice or lose it. Returns what only the clicker is told.
 */
export async function choosePrivateAnswer(click: PrivateAnswerClick, deps: PrivateAnswerChoiceDeps): Promise<CommandReply> {
  const held = await deps.store.privateAnswers.get(click.answerId);
  if (!held) return { text: choiceReplies.gone };
  if (held.owner !== click.userId || !held.conversationId.startsWith(`${click.platform}:`)) return { text: choiceReplies.notYours(held.owner) };
  if (held.state !== 'held') return { text: held.state === 'shared' ? choiceReplies.alreadyShared : choiceReplies.alreadyKept };
  const state = click.choice === 'share' ? 'shared' : 'kept';
  const decided = await deps.store.atomically(async (tx) => {
    if (!(await tx.privateAnswers.decide(held.id, state, deps.clock.now()))) return false;
    const intent = state === 'shared' ? { purpose: held.purpose, text: held.text } : { purpose: 'note' as const, text: keptPrivateNote(held.owner) };
    await deps.posts.record(held.conversationId, null, intent, tx);
    return true;
  });
  if (!decided) {
    const now = await deps.store.privateAnswers.get(held.id);
    return { text: now?.state === 'shared' ? choiceReplies.alreadyShared : choiceReplies.alreadyKept };
  }
  deps.logger.info({ conversationId: held.conversationId, answerId: held.id, choice: state }, 'a private answer was decided by its owner');
  return { text: state === 'shared' ? choiceReplies.shared : choiceReplies.kept };
}
