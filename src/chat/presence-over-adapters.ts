import type { ChatAdapter } from './chat-adapter.js';
import type { Presence } from './presence.js';

/**
 * The presence port over the connected adapters, chosen by each conversation's platform. The ONLY
 * module that calls an adapter's `setWorking` and `openStream` (and its `postEphemeral` outside the
 * outbox): when the adapter port changes shape, this is the one place that follows. A platform without
 * an adapter shows nothing (its runs fail at launch anyway).
 */
export function presenceOver(adapters: ReadonlyMap<string, ChatAdapter>): Presence {
  return {
    async setWorking(conversation, status) {
      await adapters.get(conversation.platform)?.setWorking(conversation, status);
    },
    canStream: (conversation) => adapters.get(conversation.platform)?.capabilities.stream !== undefined,
    openStream(conversation, recipientUserId, hooks) {
      const stream = adapters.get(conversation.platform)?.capabilities.stream;
      return stream ? stream.open(conversation, recipientUserId, hooks) : null;
    },
    async tellPrivately(conversation, userId, text) {
      await adapters.get(conversation.platform)?.postEphemeral(conversation, userId, text);
    },
    async setSession(conversation, update) {
      await adapters.get(conversation.platform)?.capabilities.session?.setSession(conversation, update);
    },
    othersRead: (conversation) =>
      adapters.get(conversation.platform)?.capabilities.privateAnswers?.othersRead(conversation) ?? true,
  };
}
