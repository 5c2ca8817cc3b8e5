import { createChannelQueue, type OutboundQueue } from '../../src/chat/channel-queue.js';

export type { OutboundQueue, PacedSend } from '../../src/chat/channel-queue.js';

/** Discord allows about 5 messages per 5 seconds in one channel. */
export const DISCORD_MESSAGE_LIMIT = { count: 5, windowMs: 5000 } as const;

/**
 * The spacing of posts to one channel when processes share the pacing: one every `windowMs / count`,
 * so no window, wherever it starts, ever holds more than `count` posts from all processes together.
 */
export function sharedIntervalMs(limit: { count: number; windowMs: number }): number {
  return Math.ceil(limit.windowMs / Math.max(1, limit.count));
}

/**
 * Per-channel FIFO with a sliding-window pacer: the n-th message waits until the (n-count)-th
 * completed `windowMs` ago. Completion (not start) times are kept because Discord starts its
 * bucket when it receives a request, which is after we send it. Bursts wait; nothing is dropped.
 * `beforeCall` is the pacing shared with other processes (see createChannelQueue).
 */
export function createOutboundQueue(
  limit: { count: number; windowMs: number } = DISCORD_MESSAGE_LIMIT,
  now: () => number = Date.now,
  beforeCall?: (channelId: string) => Promise<void>,
): OutboundQueue {
  return createChannelQueue<number[]>(
    {
      create: () => [],
      idle: (sent) => now() - (sent.at(-1) ?? 0) >= limit.windowMs,
      async send(sent, call) {
        if (limit.windowMs > 0 && sent.length >= limit.count) {
          const oldest = sent[sent.length - limit.count] ?? 0;
          const wait = oldest + limit.windowMs - now();
          if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        }
        try {
          return await call();
        } finally {
          sent.push(now());
          if (sent.length > limit.count) sent.splice(0, sent.length - limit.count);
        }
      },
    },
    beforeCall,
  );
}
