import type { Delivery } from '../chat/delivery.js';
import type { ConversationRef } from '../chat/conversation-ref.js';

/**
 * What the conversation reads when a notice only one person may read could not reach them privately: why, and how
 * they fix it. Never the notice itself.
 */
export const directMessageRefusedNote =
  'I could not send you a private message (Discord refused it: your direct messages are closed to me). To get it, allow direct messages from this server’s members (the server’s menu → Privacy Settings → Direct Messages), then reply here and I will try again.';

/** Where neither private notices nor direct messages exist: said in the conversation instead of the notice. */
export const noPrivateWayNote =
  'I have something for you alone, but I cannot send it to you privately on this platform.';

/** Whether a secret notice can reach its person privately on this platform (a private notice, or a DM), as delivered below. */
export function reachesPrivately(adapter: Delivery | undefined): boolean {
  return adapter !== undefined && (adapter.privateNotices || adapter.capabilities.directMessage !== undefined);
}

/**
 * Delivers a notice only `userId` may read: the platform's private notice where it is private (Slack ephemeral, the
 * console), else a direct message; when the platform refuses the DM, or has none, the conversation is told so (with
 * the person mentioned) and the notice is not posted there.
 */
export async function deliverSecretNotice(
  adapter: Delivery,
  ref: ConversationRef,
  userId: string,
  text: string,
): Promise<void> {
  if (adapter.privateNotices) return adapter.postEphemeral(ref, userId, text);
  const direct = adapter.capabilities.directMessage;
  const sent = direct ? await direct.sendDirect(userId, text) : null;
  if (sent?.kind === 'sent') return;
  await adapter.postMessage(ref, { text: direct ? directMessageRefusedNote : noPrivateWayNote, mentionUserId: userId });
}
