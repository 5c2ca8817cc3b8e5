import type { AdapterPresence } from './adapter-presence.js';
import type { PlatformReads } from './platform-reads.js';
import type { Presence } from './presence.js';

/**
 * The presence port over the connected adapters, chosen by each conversation's platform. The ONLY
 * module that holds an adapter's presence part (`setWorking`, its stream, its session): when that part
 * changes shape, this is the one place that follows. A platform without an adapter shows nothing (its
 * runs fail at launch anyway).
 */
export function presenceOver(adapters: ReadonlyMap<string, AdapterPresence & PlatformReads>): Presence {
  return {
    async setWorking(conversation, status) {
      await adapters.get(conversation.platform)?.setWorking(conversation, status);
    },
    canStream: (conversation) => adapters.get(conversation.platform)?.capabilities.stream !== undefined,
    openStream(conversation, recipientUserId, hooks) {
      const stream = adapters.get(conversation.platform)?.capabilities.stream;
      return stream ? stream.open(conversation, recipientUserId, hooks) : null;
    },
    async setSession(conversation, update) {
      await adapters.get(conversation.platform)?.capabilities.session?.setSession(conversation, update);
    },
    othersRead: (conversation) =>
      adapters.get(conversation.platform)?.capabilities.privateAnswers?.othersRead(conversation) ?? true,
  };
}
