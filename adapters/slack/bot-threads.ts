import { z } from 'zod';
import type { Logger } from '../../src/logger.js';
import { callSlack, type WebClient } from './slack-api.js';

const repliesSchema = z.object({
  messages: z.array(z.object({ user: z.string().optional(), bot_id: z.string().optional(), text: z.string().optional() })).default([]),
});

export interface BotThreads {
  /** Remembers that the bot is part of this thread (it was mentioned or posted there). */
  mark(channelId: string, threadTs: string): void;
  /**
   * Whether the bot is part of the thread. Known threads answer from memory; unknown ones
   * (e.g. after a restart) are looked up once with `conversations.replies` and the answer cached.
   */
  includesBot(channelId: string, threadTs: string): Promise<boolean>;
}

export interface BotThreadsOptions {
  client: WebClient;
  bot: () => { userId: string; botId: string } | null;
  logger: Logger;
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
  const known = new Map<string, boolean>();
  const lookups = new Map<string, Promise<boolean>>();
  const remember = (key: string, value: boolean) => {
    known.delete(key);
    known.set(key, value);
    if (known.size > capacity) known.delete(known.keys().next().value!);
  };

  const lookUp = async (channelId: string, threadTs: string): Promise<boolean> => {
    const bot = options.bot();
    if (!bot) return false;
    const mention = `<@${bot.userId}>`;
    const { messages } = await callSlack('conversations.replies', () => options.client.conversations.replies({ channel: channelId, ts: threadTs, limit: 200 }), repliesSchema);
    return messages.some((m) => m.user === bot.userId || m.bot_id === bot.botId || (m.text ?? '').includes(mention));
  };

  return {
    mark(channelId, threadTs) {
      remember(`${channelId}/${threadTs}`, true);
    },
    async includesBot(channelId, threadTs) {
      const key = `${channelId}/${threadTs}`;
      const hit = known.get(key);
      if (hit !== undefined) {
        remember(key, hit);
        return hit;
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
            options.logger.warn({ err, channelId, threadTs }, 'checking whether the bot is in a thread failed; ignoring the message');
            return false;
          })
          .finally(() => lookups.delete(key));
        lookups.set(key, pending);
      }
      return pending;
    },
  };
}
