import type { PostIntent } from '../agent/agent-types.js';
import { privateAnswerActionId } from '../chat/private-answers.js';
import type { OutboxPayload } from '../db/schema.js';
import { heldAnswerText, KEEP_LABEL, SHARE_LABEL } from '../privacy/private-answer-texts.js';
import type { Store } from '../store/store.js';

/** A post held for its owner (`PostIntent.heldFor`). */
export type HeldIntent = PostIntent & { readonly heldFor: NonNullable<PostIntent['heldFor']> };

/**
 * Records a post built on its owner's private material in a conversation others read: the held answer (its text, for
 * when they share it) and the notice only they see, with **Share in thread** / **Keep private**, as `ephemeral` rows
 * (`secret`: never a post others can read). Returns the rows' ids, in order.
 */
export async function recordHeld(tx: Store, conversationId: string, runId: string | null, intent: HeldIntent, cut: (intent: PostIntent) => OutboxPayload[]): Promise<number[]> {
  const { owner, messageId } = intent.heldFor;
  const purpose = intent.purpose === 'update' ? 'update' : 'answer';
  const id = await tx.privateAnswers.hold({ conversationId, runId, messageId, owner, purpose, text: intent.text });
  const buttons = [
    { actionId: privateAnswerActionId('share', id), label: SHARE_LABEL, style: 'primary' as const },
    { actionId: privateAnswerActionId('keep', id), label: KEEP_LABEL },
  ];
  const pieces = cut({ purpose, text: heldAnswerText(intent.text, purpose), buttons }).map((p) => ({ ...p, visibleTo: owner, secret: true }));
  return tx.outbox.add(conversationId, runId, 'ephemeral', pieces);
}
