import type { OutboundMessage } from '../chat/chat-adapter.js';
import type { Delivery } from '../chat/delivery.js';
import type { ConversationRef } from '../chat/conversation-ref.js';
import type { OutboundFile } from '../chat/file-posts.js';
import {
  privateQuestionPointer,
  unreachableFilesOwnerNote,
  unreachableOwnerNote,
  unreachableQuestionNote,
} from '../privacy/private-answer-texts.js';
import { deliverSecretNotice } from './secret-notice.js';

/**
 * Delivers the notice of an answer held for its owner, with its Share in thread / Keep private buttons, to them alone
 * (src/chat/private-answers.ts). When the platform refuses to reach them privately the conversation is told so, with
 * them mentioned, and the answer stays unposted. A platform without the capability gets the text as any secret notice
 * (no buttons: the answer then stays private).
 */
export async function deliverPrivateChoice(
  adapter: Delivery,
  ref: ConversationRef,
  userId: string,
  message: OutboundMessage,
): Promise<void> {
  const capability = adapter.capabilities.privateAnswers;
  if (!capability) return deliverSecretNotice(adapter, ref, userId, message.text);
  const shown = await capability.showPrivately(ref, userId, message);
  if (shown.kind === 'shown') return;
  await adapter.postMessage(ref, {
    text: unreachableOwnerNote('the platform refused it: your direct messages are closed to me'),
    mentionUserId: userId,
  });
}

/**
 * Delivers held files with their notice (and its Share in thread / Keep private buttons) to their owner alone, where
 * the platform can show files privately (`privateFiles` in src/chat/delivery.ts); else the notice goes alone, naming them. When the
 * platform refuses to reach them privately the conversation is told so, and the files stay unposted.
 */
export async function deliverPrivateFiles(
  adapter: Delivery,
  ref: ConversationRef,
  userId: string,
  message: OutboundMessage,
  files: readonly OutboundFile[],
): Promise<void> {
  const capability = adapter.capabilities.privateFiles;
  if (!capability || files.length === 0) return deliverPrivateChoice(adapter, ref, userId, message);
  const shown = await capability.showFilesPrivately(ref, userId, files, message);
  if (shown.kind === 'shown') return;
  await adapter.postMessage(ref, {
    text: unreachableFilesOwnerNote('the platform refused it: your direct messages are closed to me'),
    mentionUserId: userId,
  });
}

/**
 * Delivers a piece of a private run's question or approval to its person alone, buttons and all (Slack ephemeral in
 * the conversation, Discord a DM, the console prints it). Where that private place is elsewhere (a DM), the
 * conversation gets a pointer naming them, without the question, once (with the `first` piece, the one that mentions
 * them). When the platform refuses to reach them privately, the conversation is told so, and it stays
 * unasked there. A platform without the capability gets the text as any secret notice (typed answers still work).
 */
export async function deliverPrivateQuestion(
  adapter: Delivery,
  ref: ConversationRef,
  userId: string,
  message: OutboundMessage,
  piece: { approval: boolean; first: boolean },
): Promise<void> {
  const capability = adapter.capabilities.privateAnswers;
  if (!capability) return deliverSecretNotice(adapter, ref, userId, message.text);
  const shown = await capability.showPrivately(ref, userId, message);
  if (!piece.first) return;
  if (shown.kind === 'refused')
    await adapter.postMessage(ref, {
      text: unreachableQuestionNote(piece.approval, 'your direct messages are closed to me'),
      mentionUserId: userId,
    });
  else if (!adapter.privateNotices)
    await adapter.postMessage(ref, { text: privateQuestionPointer(piece.approval), mentionUserId: userId });
}
