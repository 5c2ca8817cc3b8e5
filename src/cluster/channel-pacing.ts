import { sql } from 'drizzle-orm';
import type { Clock } from '../clock.js';
import type { PgDb } from '../db/pg-client.js';
import { channelPacing } from '../db/pg-schema.js';
import { prepared } from '../store/postgres/pg-prepared.js';

const P = sql.placeholder;
const reserveSlot = prepared((d) =>
  d
    .insert(channelPacing)
    .values({
      platform: P('platform'),
      channel: P('channel'),
      nextAllowedAt: sql`${P('earliest')}::bigint + ${P('interval')}::bigint`,
    })
    .onConflictDoUpdate({
      target: [channelPacing.platform, channelPacing.channel],
      set: {
        nextAllowedAt: sql`greatest(${channelPacing.nextAllowedAt}, ${P('earliest')}::bigint) + ${P('interval')}::bigint`,
      },
    })
    .returning({ nextAllowedAt: channelPacing.nextAllowedAt }),
);

export interface ChannelPacing {
  /**
   * Reserves the next posting slot of a channel and returns how many milliseconds to wait before posting
   * in it (0 = now). Slots handed out for one channel are at least `intervalMs` apart, whichever process
   * asks, except that a channel quiet for a while may take `burst` slots at once (default 1: none); a
   * caller that then does not post leaves its slot unused (the channel is briefly slower, never faster).
   */
  reserve(platform: string, channel: string, intervalMs: number, burst?: number): Promise<number>;
}

/**
 * Outbound pacing shared by every process through the `channel_pacing` table: one atomic upsert per post
 * moves the channel's next free slot on by `intervalMs`, so two processes never post to one channel
 * faster than the platform allows. With a `burst`, the slot may lie up to `burst - 1` intervals in the
 * past (a generic cell rate: a quiet channel takes a short burst at once, then one slot per interval),
 * the same allowance each process's own token bucket gives. Slots are computed from each process's clock: keep clocks in sync (NTP);
 * a skew between processes shortens or lengthens the gap between their posts by that much.
 */
export function createChannelPacing(db: PgDb, clock: Pick<Clock, 'now'>): ChannelPacing {
  return {
    async reserve(platform, channel, intervalMs, burst = 1) {
      if (!Number.isInteger(intervalMs) || intervalMs < 0)
        throw new RangeError(`intervalMs must be a non-negative integer, got ${intervalMs}`);
      if (!Number.isInteger(burst) || burst < 1) throw new RangeError(`burst must be a positive integer, got ${burst}`);
      const now = clock.now();
      // The earliest slot this reservation may take: a quiet channel's slots start (burst - 1) intervals back.
      const earliest = now - (burst - 1) * intervalMs;
      const rows = await reserveSlot(db, { platform, channel, earliest, interval: intervalMs });
      const slot = rows[0]!.nextAllowedAt - intervalMs;
      return Math.max(0, slot - now);
    },
  };
}
