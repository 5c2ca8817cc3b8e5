import type { ConversationRef } from '../chat/conversation-ref.js';
import type { Delivery } from '../chat/delivery.js';

/**
 * A notice only one person sees, where Errand holds no conversation to record it in: the refusal of a person
 * writing where Errand may not be used, or stopping a session they may not stop. Storing a conversation there
 * would make Errand listen to that thread, so the notice goes out at once and best-effort, never as a row.
 * Every private notice inside a conversation Errand holds is an `ephemeral` row of the outbox instead.
 */
export interface UnrecordedNotices {
  tellPrivately(conversation: ConversationRef, userId: string, text: string): Promise<void>;
}

/** The unrecorded notices over the connected adapters' delivery; a platform without an adapter shows nothing. */
export function unrecordedNoticesOver(deliveries: ReadonlyMap<string, Delivery>): UnrecordedNotices {
  return {
    async tellPrivately(conversation, userId, text) {
      await deliveries.get(conversation.platform)?.postEphemeral(conversation, userId, text);
    },
  };
}
