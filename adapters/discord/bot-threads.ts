import { DiscordAPIError, RESTJSONErrorCodes, Routes, type REST } from 'discord.js';
import { createKeyedLookup } from '../../src/chat/keyed-lookup.js';

/** What the tracker needs to know about a thread from the gateway cache. */
export interface ThreadFacts {
  readonly id: string;
  readonly ownerId: string | null;
  /** True when the cached member list already holds the bot. */
  readonly botIsCachedMember: boolean;
}

export interface BotThreads {
  /** Whether the bot started or joined this thread, so messages there need no mention. */
  isBotThread(thread: ThreadFacts): Promise<boolean>;
  /** Remembers a thread the bot opened, was added to, or posted in (posting joins a thread). */
  mark(threadId: string): void;
  /** Forgets a thread the bot was removed from. */
  unmark(threadId: string): void;
}

const MAX_ENTRIES = 10_000;

/**
 * Tracks which threads are the bot's. Owner and cached membership answer most cases; after a
 * restart the gateway does not say whether the bot is a member, so the answer comes from
 * `GET /channels/{id}/thread-members/@me` once (concurrent asks share one request) and is cached
 * (both yes and no), bounded in size.
 */
export function createBotThreads(rest: REST, botId: () => string | null): BotThreads {
  const known = createKeyedLookup<boolean>({
    capacity: MAX_ENTRIES,
    load: async (threadId) => {
      try {
        await rest.get(Routes.threadMembers(threadId, '@me'));
        return true;
      } catch (err) {
        if (err instanceof DiscordAPIError && err.code === RESTJSONErrorCodes.UnknownMember) return false;
        throw err;
      }
    },
  });
  return {
    async isBotThread(thread) {
      const cached = known.peek(thread.id);
      if (cached !== undefined) return cached;
      const me = botId();
      if ((me !== null && thread.ownerId === me) || thread.botIsCachedMember) {
        known.set(thread.id, true);
        return true;
      }
      return known.get(thread.id);
    },
    mark: (id) => known.set(id, true),
    unmark: (id) => known.set(id, false),
  };
}
