import { bigint, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';

/** Milliseconds since the epoch, as pg-schema.ts stores every time. */
const epochMs = (name: string) => bigint(name, { mode: 'number' });

/**
 * Outbound pacing shared by every process: the earliest time the next post may go to a channel.
 * A process reserves a slot with one atomic upsert (cluster/channel-pacing.ts), so two processes
 * never post to one channel faster than the platform allows.
 */
export const channelPacing = pgTable(
  'channel_pacing',
  {
    platform: text('platform').notNull(),
    channel: text('channel').notNull(),
    nextAllowedAt: epochMs('next_allowed_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.platform, t.channel] })],
);

export type PgChannelPacingRow = typeof channelPacing.$inferSelect;
