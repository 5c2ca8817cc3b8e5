import { z } from 'zod';

/** Where a conversation lives. `thread` is null for a channel-level or DM conversation. */
export interface ConversationRef {
  readonly platform: string;
  readonly workspace: string;
  readonly channel: string;
  readonly thread: string | null;
}

/** A channel without a thread: where schedules post and slash commands arrive. */
export type ChannelRef = Omit<ConversationRef, 'thread'>;

/** One piece of a conversation key: not empty, no ":" (the separator), no spaces. */
const PART = /^[^:\s]+$/;
const part = z.string().min(1).regex(PART, 'must not contain ":" or spaces');

/** Encodes the stable key `platform:workspace:channel:thread` (thread `-` when none). */
export function conversationKey(ref: ConversationRef): string {
  return `${ref.platform}:${ref.workspace}:${ref.channel}:${ref.thread ?? '-'}`;
}

/** Decodes a key made by conversationKey; null when malformed. */
export function parseConversationKey(key: string): ConversationRef | null {
  const pieces = key.split(':');
  if (pieces.length !== 4) return null;
  const [platform, workspace, channel, thread] = pieces as [string, string, string, string];
  // Read on every store access to a conversation: the pattern alone, not a schema's parse per piece.
  if (!PART.test(platform) || !PART.test(workspace) || !PART.test(channel) || !PART.test(thread)) return null;
  return { platform, workspace, channel, thread: thread === '-' ? null : thread };
}

/** The channel a conversation belongs to. */
export function channelOf(ref: ConversationRef): ChannelRef {
  return { platform: ref.platform, workspace: ref.workspace, channel: ref.channel };
}

/** The key of a channel (for per-channel limits and listings). */
export function channelKey(ref: ChannelRef): string {
  return `${ref.platform}:${ref.workspace}:${ref.channel}`;
}

/** Validates a ConversationRef built by an adapter from platform data. */
export const conversationRefSchema = z.object({
  platform: part,
  workspace: part,
  channel: part,
  thread: part.nullable(),
});
