import type { ChatAdapter, OutboundMessage } from '../chat/chat-adapter.js';
import type { ConversationRef } from '../chat/conversation-ref.js';
import { unreachableOwnerNote } from '../privacy/private-answer-texts.js';
import { deliverSecretNotice } from './secret-notice.js';

/**
 * Delivers the notice of an answer held for its owner, with its Share in thread / Keep private buttons, to them alone
 * (src/chat/private-answers.ts). When the platform refuses to reach them privately the conversation is told so, with
 * them mentioned, and the answer stays unposted. A platform without the capability gets the text as any secret notice
 * (no buttons: the answer then stays private).
 */
export async function deliverPrivateChoice(adapter: ChatAdapter, ref: ConversationRef, userId: string, message: OutboundMessage): Promise<void> {
  const capability = adapter.capabilities.privateAnswers;
  if (!capability) return deliverSecretNotice(adapter, ref, userId, message.text);
  const shown = await capability.showPrivately(ref, userId, message);
  if (shown.kind === 'shown') return;
  await adapter.postMessage(ref, { text: unreachableOwnerNote('the platform refused it: your direct messages are closed to me'), mentionUserId: userId });
}
