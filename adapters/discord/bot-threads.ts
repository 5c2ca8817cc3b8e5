import { DiscordAPIError, RESTJSONErrorCodes, Routes, type REST } from 'discord.js';

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
  const known = new Map<string, boolean>();
  const remember = (id: string, value: boolean) => {
    known.delete(id);
    known.set(id, value);
    if (known.size > MAX_ENTRIES) {
      const oldest = known.keys().next().value;
      if (oldest !== undefined) known.delete(oldest);
    }
  };

  const inFlight = new Map<string, Promise<boolean>>();
  const lookUp = async (threadId: string): Promise<boolean> => {
    try {
      await rest.get(Routes.threadMembers(threadId, '@me'));
      return true;
    } catch (err) {
      if (err instanceof DiscordAPIError && err.code === RESTJSONErrorCodes.UnknownMember) return false;
      throw err;
    }
  };

  return {
    async isBotThread(thread) {
      const cached = known.get(thread.id);
      if (cached !== undefined) return cached;
      const me = botId();
      if ((me !== null && thread.ownerId === me) || thread.botIsCachedMember) {
        remember(thread.id, true);
        return true;
      }
      let pending = inFlight.get(thread.id);
      if (!pending) {
        pending = lookUp(thread.id)
          .then((member) => {
            if (!known.has(thread.id)) remember(thread.id, member);
            return known.get(thread.id) ?? member;
          })
          .finally(() => inFlight.delete(thread.id));
        inFlight.set(thread.id, pending);
      }
      return pending;
    },
    mark: (id) => remember(id, true),
    unmark: (id) => remember(id, false),
  };
}
