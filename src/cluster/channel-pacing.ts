import { sql } from 'drizzle-orm';
import type { Clock } from '../clock.js';
import type { PgDb } from '../db/pg-client.js';
import { channelPacing } from '../db/pg-schema.js';
import { prepared } from '../store/postgres/pg-prepared.js';
import type { ClusterPeers } from './wake-channel.js';

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
 * The slots a process alone took without writing them (the table's `greatest`, so a slot handed out since is kept),
 * written when another process appears: from then on both read them.
 */
const SHARE_SLOTS = `insert into channel_pacing (platform, channel, next_allowed_at)
select * from unnest($1::text[], $2::text[], $3::bigint[])
on conflict (platform, channel) do update set next_allowed_at = greatest(channel_pacing.next_allowed_at, excluded.next_allowed_at)`;

/** A channel's next free slot, as this process alone computes it. */
interface LocalSlot {
  readonly platform: string;
  readonly channel: string;
  nextAllowedAt: number;
}

/**
 * Outbound pacing shared by every process through the `channel_pacing` table: one atomic upsert per post
 * moves the channel's next free slot on by `intervalMs`, so two processes never post to one channel
 * faster than the platform allows. With a `burst`, the slot may lie up to `burst - 1` intervals in the
 * past (a generic cell rate: a quiet channel takes a short burst at once, then one slot per interval),
 * the same allowance each process's own token bucket gives. Slots are computed from each process's clock: keep clocks in sync (NTP);
 * a skew between processes shortens or lengthens the gap between their posts by that much.
 *
 * With `peers`, a process alone on the database (no other listener on the wake channel) computes the same slots
 * in memory instead, and writes those still ahead into the table as soon as another process appears (its hello
 * reaches this one within moments of its start, before it has posted), or at its next reservation if the
 * appearance was missed: one process on PostgreSQL pays no statement a post for a pacing nobody else reads.
 */
export function createChannelPacing(db: PgDb, clock: Pick<Clock, 'now'>, peers?: ClusterPeers): ChannelPacing {
  const local = new Map<string, LocalSlot>();
  let sharing: Promise<void> = Promise.resolve();

  /** Writes the slots still ahead to the table (one statement), then forgets them; a failure keeps them for the next call. */
  const share = (): Promise<void> => {
    sharing = sharing
      .catch(() => undefined)
      .then(async () => {
        const now = clock.now();
        const ahead = [...local.values()].filter((s) => s.nextAllowedAt > now);
        if (ahead.length > 0)
          await db.$client.query(SHARE_SLOTS, [
            ahead.map((s) => s.platform),
            ahead.map((s) => s.channel),
            ahead.map((s) => s.nextAllowedAt),
          ]);
        for (const [key, slot] of local) if (slot.nextAllowedAt <= now || ahead.includes(slot)) local.delete(key);
      });
    return sharing;
  };
  peers?.onJoined(() => void share().catch(() => undefined));

  const reserveAlone = (platform: string, channel: string, earliest: number, intervalMs: number): number => {
    const key = `${platform}\u0000${channel}`;
    const now = clock.now();
    const slot = local.get(key) ?? { platform, channel, nextAllowedAt: earliest };
    slot.nextAllowedAt = Math.max(slot.nextAllowedAt, earliest) + intervalMs;
    local.set(key, slot);
    // Channels quiet for a while hold nothing another process would need: forget them as they pass.
    if (local.size > 1000) for (const [k, s] of local) if (s.nextAllowedAt <= now) local.delete(k);
    return Math.max(0, slot.nextAllowedAt - intervalMs - now);
  };

  return {
    async reserve(platform, channel, intervalMs, burst = 1) {
      if (!Number.isInteger(intervalMs) || intervalMs < 0)
        throw new RangeError(`intervalMs must be a non-negative integer, got ${intervalMs}`);
      if (!Number.isInteger(burst) || burst < 1) throw new RangeError(`burst must be a positive integer, got ${burst}`);
      const now = clock.now();
      // The earliest slot this reservation may take: a quiet channel's slots start (burst - 1) intervals back.
      const earliest = now - (burst - 1) * intervalMs;
      if (peers?.alone()) return reserveAlone(platform, channel, earliest, intervalMs);
      if (local.size > 0) await share();
      const rows = await reserveSlot(db, { platform, channel, earliest, interval: intervalMs });
      const slot = rows[0]!.nextAllowedAt - intervalMs;
      return Math.max(0, slot - now);
    },
  };
}
