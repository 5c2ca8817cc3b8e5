import { z } from 'zod';
import type { Logger } from '../../src/logger.js';
import { callSlack, platformError, retryAfterMs, type WebClient } from './slack-api.js';

const repliesSchema = z.object({
  messages: z.array(z.object({ user: z.string().optional(), bot_id: z.string().optional(), text: z.string().optional() })).default([]),
});

export interface BotThreads {
  /** Remembers that the bot is part of this thread (it was mentioned or posted there). */
  mark(channelId: string, threadTs: string): void;
  /**
   * Whether the bot is part of the thread. Threads in memory or in Errand's database answer at
   * once; others are looked up with `conversations.replies` (429s and network errors retried) and
   * the answer cached. A lookup that still fails answers false without caching, logged at warn.
   */
  includesBot(channelId: string, threadTs: string, teamId: string): Promise<boolean>;
}

export interface BotThreadsOptions {
  client: WebClient;
  bot: () => { userId: string; botId: string } | null;
  logger: Logger;
  /** Whether Errand's database holds the thread's conversation (the sink's `knowsConversation`). */
  known?: (thread: { teamId: string; channelId: string; threadTs: string }) => boolean;
  /** Lookups tried at most before giving up (default 4). */
  maxAttempts?: number;
  /** Wait before retrying a lookup that failed without a Retry-After (network errors, 5xx). */
  backoffMs?: (attempt: number) => number;
  sleep?: (ms: number) => Promise<void>;
  /** Threads remembered at most (least recently used are forgotten, then looked up again). */
  capacity?: number;
}

/**
 * The threads the bot takes part in, so a reply in such a thread reaches the bot without a
 * mention while every other thread in the channel stays private to people. A bounded LRU in
 * memory with Slack itself as the source of truth behind it.
 */
export function createBotThreads(options: BotThreadsOptions): BotThreads {
  const capacity = options.capacity ?? 10_000;
  const maxAttempts = options.maxAttempts ?? 4;
  const backoffMs = options.backoffMs ?? ((attempt: number) => 250 * 2 ** attempt);
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const known = new Map<string, boolean>();
  const lookups = new Map<string, Promise<boolean>>();
  const remember = (key: string, value: boolean) => {
    known.delete(key);
    known.set(key, value);
    if (known.size > capacity) known.delete(known.keys().next().value!);
  };

  /** Retries what may pass (429 after Retry-After, network errors, 5xx); Slack's own refusals (thread_not_found…) are final. */
  const withRetries = async <T>(call: () => Promise<T>): Promise<T> => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await call();
      } catch (err) {
        const wait = retryAfterMs(err) ?? (platformError(err) === null ? backoffMs(attempt) : null);
        if (wait === null || attempt + 1 >= maxAttempts) throw err;
        await sleep(wait);
      }
    }
  };

  const lookUp = async (channelId: string, threadTs: string): Promise<boolean> => {
    const bot = options.bot();
    if (!bot) return false;
    const mention = `<@${bot.userId}>`;
    const { messages } = await withRetries(() => callSlack('conversations.replies', () => options.client.conversations.replies({ channel: channelId, ts: threadTs, limit: 200 }), repliesSchema));
    return messages.some((m) => m.user === bot.userId || m.bot_id === bot.botId || (m.text ?? '').includes(mention));
  };

  return {
    mark(channelId, threadTs) {
      remember(`${channelId}/${threadTs}`, true);
    },
    async includesBot(channelId, threadTs, teamId) {
      const key = `${channelId}/${threadTs}`;
      const hit = known.get(key);
      if (hit === true || (hit === undefined && options.known?.({ teamId, channelId, threadTs }))) {
        remember(key, true);
        return true;
      }
      if (hit === false) {
        remember(key, false);
        return false;
      }
      let pending = lookups.get(key);
      if (!pending) {
        pending = lookUp(channelId, threadTs)
          .then((found) => {
            // A mark that raced the lookup wins: the bot joined the thread meanwhile.
            if (known.get(key) !== true) remember(key, found);
            return known.get(key) ?? found;
          })
          .catch((err: unknown) => {
            options.logger.warn({ err, channelId, threadTs }, 'Slack could not say whether the bot is in this thread; Errand has no record of it, so the reply is not treated as addressed to the bot');
            return false;
          })
          .finally(() => lookups.delete(key));
        lookups.set(key, pending);
      }
      return pending;
    },
  };
}
