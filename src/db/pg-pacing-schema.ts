import { pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { epochMs } from './pg-columns.js';

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
