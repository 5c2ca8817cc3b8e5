import { RateLimitError } from '../../src/errors.js';

/** Slack allows about one message per second per channel, with short bursts tolerated. */
export const SLACK_MESSAGE_RATE = { burst: 3, perSecond: 1 } as const;

export interface RateLimit {
  /** Messages that may go out back to back after a quiet spell. */
  readonly burst: number;
  /** Sustained messages per second. */
  readonly perSecond: number;
}

/** Sends one call within the channel's rate, retrying after a 429 until it goes through. */
export type PacedSend = <R>(call: () => Promise<R>) => Promise<R>;

export interface OutboundQueue {
  /**
   * Runs `job` after every job queued before it for the same channel (FIFO), so the pieces of a
   * long reply are never interleaved with another post. Each call the job makes through `send`
   * waits for a token of the channel's bucket; a failed job does not block the next.
   */
  enqueue<T>(channelId: string, job: (send: PacedSend) => Promise<T>): Promise<T>;
  /** Resolves once every job queued so far has settled. */
  drain(): Promise<void>;
}

export interface OutboundQueueOptions {
  rate?: RateLimit;
  /** Milliseconds to wait when `err` is a rate-limit answer, else null (the error is thrown). */
  retryAfterMs: (err: unknown) => number | null;
  /** Give up (throw RateLimitError) after this many 429s in a row for one call. */
  maxRateLimitRetries?: number;
  now?: () => number;
}

interface Bucket {
  tail: Promise<void>;
  pending: number;
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
  const buckets = new Map<string, Bucket>();
  const all = new Set<Promise<void>>();

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

  const pacedFor =
    (b: Bucket): PacedSend =>
    async (call) => {
      for (let attempt = 0; ; attempt++) {
        await takeToken(b);
        try {
          return await call();
        } catch (err) {
          const wait = options.retryAfterMs(err);
          if (wait === null) throw err;
          if (attempt >= maxRetries) throw new RateLimitError(`Slack kept rate limiting after ${attempt + 1} attempts`, wait, { cause: err });
          b.blockedUntil = Math.max(b.blockedUntil, now() + wait);
          b.tokens = 0;
        }
      }
    };

  /** Forgets idle channels whose bucket has refilled, so memory stays flat across many channels. */
  const sweep = () => {
    for (const [id, b] of buckets) {
      refill(b);
      if (b.pending === 0 && b.tokens >= rate.burst && b.blockedUntil <= now()) buckets.delete(id);
    }
  };

  const bucketOf = (channelId: string): Bucket => {
    let b = buckets.get(channelId);
    if (!b) {
      if (buckets.size >= 1024) sweep();
      b = { tail: Promise.resolve(), pending: 0, tokens: rate.burst, refilledAt: now(), blockedUntil: 0 };
      buckets.set(channelId, b);
    }
    return b;
  };

  return {
    enqueue(channelId, job) {
      const b = bucketOf(channelId);
      b.pending++;
      const result = b.tail.then(() => job(pacedFor(b)));
      const settled = result.then(
        () => undefined,
        () => undefined,
      );
      b.tail = settled;
      all.add(settled);
      void settled.then(() => {
        all.delete(settled);
        b.pending--;
        refill(b);
        // A full bucket with nothing queued carries no state worth keeping.
        if (b.pending === 0 && b.tokens >= rate.burst && b.blockedUntil <= now()) buckets.delete(channelId);
      });
      return result;
    },
    async drain() {
      while (all.size > 0) await Promise.all([...all]);
    },
  };
}
