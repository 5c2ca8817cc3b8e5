import { AdapterError } from '../errors.js';
import type { ChatAdapter } from './chat-adapter.js';
import type { ChannelRef, ConversationRef } from './conversation-ref.js';

/**
 * Opens the thread a new conversation lives in (a Discord mention in a channel, a schedule starting in a
 * channel). Kept out of the outbox on purpose: it is part of receiving the work, not a post of it — the
 * conversation's key is only known once the thread is open, and the outbox records rows of a conversation
 * that exists. A failure is handled where the thread was asked for (the dispatcher answers in the channel).
 */
export interface ThreadOpener {
  /**
   * Opens a thread rooted at a channel message and returns its conversation; where no thread can be
   * opened (a DM, threads turned off) it opens none and returns the channel's conversation.
   */
  openThread(channel: ChannelRef, messageId: string, name: string): Promise<ConversationRef>;
}

/** The thread opener over the connected adapters, by the channel's platform. */
export function threadOpenerOver(adapters: ReadonlyMap<string, ChatAdapter>): ThreadOpener {
  return {
    async openThread(channel, messageId, name) {
      const adapter = adapters.get(channel.platform);
      if (!adapter) throw new AdapterError(`no ${channel.platform} adapter is connected`);
      return adapter.openThread(channel, messageId, name);
    },
  };
}
