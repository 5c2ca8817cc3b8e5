import type { PostIntent } from '../agent/agent-types.js';
import { privateAnswerActionId } from '../chat/private-answers.js';
import type { OutboxPayload } from '../db/schema.js';
import type { HeldFile } from '../privacy/private-answer-store.js';
import { heldAnswerText, heldFilesText, KEEP_LABEL, SHARE_LABEL } from '../privacy/private-answer-texts.js';
import type { Store } from '../store/store.js';

/** A post held for its owner (`PostIntent.heldFor`). */
export type HeldIntent = PostIntent & { readonly heldFor: NonNullable<PostIntent['heldFor']> };

/**
 * Records a post built on its owner's private material in a conversation others read: the held answer (its text, for
 * when they share it) and the notice only they see, with **Share in thread** / **Keep private**, as `ephemeral` rows
 * (`secret`: never a post others can read). Returns the rows' ids, in order.
 */
export async function recordHeld(
  tx: Store,
  conversationId: string,
  runId: string | null,
  intent: HeldIntent,
  cut: (intent: PostIntent) => OutboxPayload[],
): Promise<number[]> {
  const { owner, messageId } = intent.heldFor;
  const purpose = intent.purpose === 'update' ? 'update' : 'answer';
  const id = await tx.privateAnswers.hold({ conversationId, runId, messageId, owner, purpose, text: intent.text });
  const buttons = [
    { actionId: privateAnswerActionId('share', id), label: SHARE_LABEL, style: 'primary' as const },
    { actionId: privateAnswerActionId('keep', id), label: KEEP_LABEL },
  ];
  const pieces = cut({ purpose, text: heldAnswerText(intent.text, purpose), buttons }).map((p) => ({
    ...p,
    visibleTo: owner,
    secret: true,
  }));
  return tx.outbox.add(conversationId, runId, 'ephemeral', pieces);
}

/** Files a private run's code wrote, held for their owner: each with the message of the thread's post it goes in. */
export interface HeldFilesIntent {
  readonly owner: string;
  readonly files: readonly HeldFile[];
  /** Lines naming files the platform would not take, for the owner alone (a file's name may be private too). */
  readonly refused: readonly string[];
}

/**
 * Records files built on their owner's private material in a conversation others read: the held post (its files kept
 * in `private_answer_files` for when they share them) and the notice only they see, with the files and **Share in
 * thread** / **Keep private**, as `ephemeral` rows (`secret`; the one with the buttons brings the files, row-delivery.ts).
 * Returns the rows' ids.
 */
export async function recordHeldFiles(
  tx: Store,
  conversationId: string,
  runId: string | null,
  held: HeldFilesIntent,
  cut: (intent: PostIntent) => OutboxPayload[],
): Promise<number[]> {
  const names = held.files.map((f) => f.name);
  const id = await tx.privateAnswers.hold({
    conversationId,
    runId,
    messageId: null,
    owner: held.owner,
    purpose: 'files',
    text: names.join('\n'),
  });
  await tx.privateAnswers.holdFiles(id, held.files);
  const buttons = [
    { actionId: privateAnswerActionId('share', id), label: SHARE_LABEL, style: 'primary' as const },
    { actionId: privateAnswerActionId('keep', id), label: KEEP_LABEL },
  ];
  const pieces = cut({ purpose: 'update', text: heldFilesText(names, held.refused), buttons });
  return tx.outbox.add(
    conversationId,
    runId,
    'ephemeral',
    pieces.map((p) => ({ ...p, visibleTo: held.owner, secret: true })),
  );
}
