import { createChannelQueue, type OutboundQueue } from '../../src/chat/channel-queue.js';
import { RateLimitError } from '../../src/errors.js';

/** Slack allows about one message per second per channel, with short bursts tolerated. */
export const SLACK_MESSAGE_RATE = { burst: 3, perSecond: 1 } as const;

export interface RateLimit {
  /** Messages that may go out back to back after a quiet spell. */
  readonly burst: number;
  /** Sustained messages per second. */
  readonly perSecond: number;
}

export type { OutboundQueue, PacedSend } from '../../src/chat/channel-queue.js';

export interface OutboundQueueOptions {
  rate?: RateLimit;
  /** Milliseconds to wait when `err` is a rate-limit answer, else null (the error is thrown). */
  retryAfterMs: (err: unknown) => number | null;
  /** Give up (throw RateLimitError) after this many 429s in a row for one call. */
  maxRateLimitRetries?: number;
  now?: () => number;
  /** Awaited right before each call to a channel: the pacing shared with other processes (see createChannelQueue). */
  beforeCall?: (channelId: string) => Promise<void>;
}

interface Bucket {
  tokens: number;
  refilledAt: number;
  /** A 429 told us to keep quiet until then. */
  blockedUntil: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Per-channel FIFO with a token bucket: `burst` messages may go at once, then one every
 * `1/perSecond` s. A 429 blocks the whole channel for its Retry-After and the same call is sent
 * again, so bursts are delayed, never dropped and never reordered. Idle channels are forgotten.
 */
export function createOutboundQueue(options: OutboundQueueOptions): OutboundQueue {
  const rate = options.rate ?? SLACK_MESSAGE_RATE;
  const now = options.now ?? Date.now;
  const maxRetries = options.maxRateLimitRetries ?? 20;
  const intervalMs = 1000 / rate.perSecond;

  const refill = (b: Bucket) => {
    const t = now();
    b.tokens = Math.min(rate.burst, b.tokens + (t - b.refilledAt) / intervalMs);
    b.refilledAt = t;
  };

  const takeToken = async (b: Bucket) => {
    for (;;) {
      const blocked = b.blockedUntil - now();
      if (blocked > 0) {
        await sleep(blocked);
        continue;
      }
      refill(b);
      if (b.tokens >= 1) {
        b.tokens -= 1;
        return;
      }
      await sleep(Math.ceil((1 - b.tokens) * intervalMs));
    }
  };

  return createChannelQueue<Bucket>(
    {
      create: () => ({ tokens: rate.burst, refilledAt: now(), blockedUntil: 0 }),
      // A full bucket that is not blocked carries no state worth keeping.
      idle: (b) => {
        refill(b);
        return b.tokens >= rate.burst && b.blockedUntil <= now();
      },
      async send(b, call) {
        for (let attempt = 0; ; attempt++) {
          await takeToken(b);
          try {
            return await call();
          } catch (err) {
            const wait = options.retryAfterMs(err);
            if (wait === null) throw err;
            if (attempt >= maxRetries)
              throw new RateLimitError(`Slack kept rate limiting after ${attempt + 1} attempts`, wait, { cause: err });
            b.blockedUntil = Math.max(b.blockedUntil, now() + wait);
            b.tokens = 0;
          }
        }
      },
    },
    options.beforeCall,
  );
}
