import { z } from 'zod';
import type { Logger } from '../../src/logger.js';
import { createKeyedLookup } from '../../src/chat/keyed-lookup.js';
import { callSlack, platformError, retryAfterMs, type WebClient } from './slack-api.js';

const repliesSchema = z.object({
  messages: z
    .array(z.object({ user: z.string().optional(), bot_id: z.string().optional(), text: z.string().optional() }))
    .default([]),
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
  known?: (thread: { teamId: string; channelId: string; threadTs: string }) => Promise<boolean>;
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
  // Small on purpose: threads of Errand's own conversations are answered by the database (`known`),
  // so the cache only saves lookups of recent threads; thousands of entries would sit in the idle heap.
  const capacity = options.capacity ?? 2_000;
  const maxAttempts = options.maxAttempts ?? 4;
  const backoffMs = options.backoffMs ?? ((attempt: number) => 250 * 2 ** attempt);
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));

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
    const { messages } = await withRetries(() =>
      callSlack(
        'conversations.replies',
        () => options.client.conversations.replies({ channel: channelId, ts: threadTs, limit: 200 }),
        repliesSchema,
      ),
    );
    return messages.some((m) => m.user === bot.userId || m.bot_id === bot.botId || (m.text ?? '').includes(mention));
  };
  const known = createKeyedLookup<boolean>({
    capacity,
    load: (key) => {
      const [channelId = '', threadTs = ''] = key.split('/');
      return lookUp(channelId, threadTs);
    },
  });

  return {
    mark(channelId, threadTs) {
      known.set(`${channelId}/${threadTs}`, true);
    },
    async includesBot(channelId, threadTs, teamId) {
      const key = `${channelId}/${threadTs}`;
      const hit = known.peek(key);
      if (hit !== undefined) return hit;
      if (await options.known?.({ teamId, channelId, threadTs })) {
        known.set(key, true);
        return true;
      }
      return known.get(key).catch((err: unknown) => {
        options.logger.warn(
          { err, channelId, threadTs },
          'Slack could not say whether the bot is in this thread; Errand has no record of it, so the reply is not treated as addressed to the bot',
        );
        return false;
      });
    },
  };
}
