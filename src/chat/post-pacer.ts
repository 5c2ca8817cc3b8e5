import type { Logger } from '../logger.js';

/**
 * Pacing of posts to one channel shared by every process posting as the same bot, so that together
 * they never post faster than the platform allows. Without one, each adapter paces only its own posts.
 */
export interface PostPacer {
  /**
   * Reserves the channel's next posting slot, at least `intervalMs` after the one before (a channel quiet
   * for a while may take `burst` slots at once, default 1); resolves the milliseconds to wait before posting (0 = now).
   */
  reserve(platform: string, channel: string, intervalMs: number, burst?: number): Promise<number>;
}

export interface SharedPacingOptions {
  pacer: PostPacer;
  platform: string;
  /** Least time between two posts to one channel, whichever process makes them. */
  intervalMs: number;
  /** Posts a quiet channel may take back to back, as the platform tolerates (default 1: none). */
  burst?: number;
  logger: Logger;
  sleep?: (ms: number) => Promise<void>;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The wait an outbound queue makes right before each platform call to a channel. A pacer that fails
 * (its database unreachable) is logged and the call goes ahead under the adapter's own pacing: a post
 * that might meet a 429 beats a post that is never made.
 */
export function sharedPacing(options: SharedPacingOptions): (channel: string) => Promise<void> {
  const sleep = options.sleep ?? realSleep;
  return async (channel) => {
    let wait: number;
    try {
      wait = await options.pacer.reserve(options.platform, channel, options.intervalMs, options.burst ?? 1);
    } catch (err) {
      options.logger.warn({ err, channel }, 'shared post pacing failed; posting under this process pacing only');
      return;
    }
    if (wait > 0) await sleep(wait);
  };
}
