import { sql } from 'drizzle-orm';
import type { Clock } from '../clock.js';
import type { PgDb } from '../db/pg-client.js';
import { channelPacing } from '../db/pg-schema.js';

export interface ChannelPacing {
  /**
   * Reserves the next posting slot of a channel and returns how many milliseconds to wait before posting
   * in it (0 = now). Slots handed out for one channel are at least `intervalMs` apart, whichever process
   * asks; a caller that then does not post leaves its slot unused (the channel is briefly slower, never faster).
   */
  reserve(platform: string, channel: string, intervalMs: number): Promise<number>;
}

/**
 * Outbound pacing shared by every process through the `channel_pacing` table: one atomic upsert per post
 * moves the channel's next free slot on by `intervalMs`, so two processes never post to one channel
 * faster than the platform allows. Slots are computed from each process's clock: keep clocks in sync (NTP);
 * a skew between processes shortens or lengthens the gap between their posts by that much.
 */
export function createChannelPacing(db: PgDb, clock: Pick<Clock, 'now'>): ChannelPacing {
  return {
    async reserve(platform, channel, intervalMs) {
      if (!Number.isInteger(intervalMs) || intervalMs < 0) throw new RangeError(`intervalMs must be a non-negative integer, got ${intervalMs}`);
      const now = clock.now();
      const rows = await db
        .insert(channelPacing)
        .values({ platform, channel, nextAllowedAt: now + intervalMs })
        .onConflictDoUpdate({
          target: [channelPacing.platform, channelPacing.channel],
          set: { nextAllowedAt: sql`greatest(${channelPacing.nextAllowedAt}, ${now}::bigint) + ${intervalMs}::bigint` },
        })
        .returning({ nextAllowedAt: channelPacing.nextAllowedAt });
      const slot = rows[0]!.nextAllowedAt - intervalMs;
      return Math.max(0, slot - now);
    },
  };
}
