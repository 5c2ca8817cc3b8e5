import type { ChannelRef, ConversationRef } from '../chat/conversation-ref.js';
import type { Delivery } from '../chat/delivery.js';
import { AdapterError } from '../errors.js';

/**
 * Opens the thread a new conversation lives in (a Discord mention in a channel, a schedule starting in a
 * channel). Not a recorded row: it is part of receiving the work, not a post of it — the conversation's key
 * is only known once the thread is open, and the outbox records rows of a conversation that exists. A failure
 * is handled where the thread was asked for (the dispatcher answers in the channel).
 */
export interface ThreadOpener {
  /**
   * Opens a thread rooted at a channel message and returns its conversation; where no thread can be
   * opened (a DM, threads turned off) it opens none and returns the channel's conversation.
   */
  openThread(channel: ChannelRef, messageId: string, name: string): Promise<ConversationRef>;
}

/** The thread opener over the connected adapters' delivery, by the channel's platform. */
export function threadOpenerOver(deliveries: ReadonlyMap<string, Delivery>): ThreadOpener {
  return {
    async openThread(channel, messageId, name) {
      const delivery = deliveries.get(channel.platform);
      if (!delivery) throw new AdapterError(`no ${channel.platform} adapter is connected`);
      return delivery.openThread(channel, messageId, name);
    },
  };
}
