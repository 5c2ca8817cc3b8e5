import type { ChannelRef, ConversationRef } from '../../src/chat/conversation-ref.js';

/** The platform name of every Discord ConversationRef. */
export const DISCORD_PLATFORM = 'discord';
/** The workspace of DM conversations (Discord's own name for the DM "guild"): a personal one (src/chat/workspace-of.ts), in no server. */
export const DM_WORKSPACE = '@me';

const SNOWFLAKE = /^\d{1,25}$/;

/** Where a message lives on Discord: a guild (null for DMs), a channel, and a thread in it. */
export interface DiscordLocation {
  readonly guildId: string | null;
  /** The text channel (the thread's parent for thread messages) or the DM channel. */
  readonly channelId: string;
  readonly threadId: string | null;
}

const isSnowflake = (v: string | null): boolean => v === null || SNOWFLAKE.test(v);

/**
 * Encodes a Discord location as a ConversationRef (`discord:<guild|@me>:<channel>:<thread|->`),
 * so a mention, a thread reply, a button click and a slash command in the same place always land
 * in the same conversation. Null when an id is not a snowflake (never trust the wire blindly).
 */
export function toConversationRef(loc: DiscordLocation): ConversationRef | null {
  if (!isSnowflake(loc.guildId) || !SNOWFLAKE.test(loc.channelId) || !isSnowflake(loc.threadId)) return null;
  if (loc.guildId === null && loc.threadId !== null) return null;
  return {
    platform: DISCORD_PLATFORM,
    workspace: loc.guildId ?? DM_WORKSPACE,
    channel: loc.channelId,
    thread: loc.threadId,
  };
}

/** The channel part of a location (where slash commands and schedules are scoped). */
export function toChannelRef(guildId: string | null, channelId: string): ChannelRef | null {
  const ref = toConversationRef({ guildId, channelId, threadId: null });
  return ref ? { platform: ref.platform, workspace: ref.workspace, channel: ref.channel } : null;
}

/** Decodes a ConversationRef made by toConversationRef; null when it is not a valid Discord ref. */
export function fromConversationRef(
  ref: Pick<ConversationRef, 'platform' | 'workspace' | 'channel'> & { thread?: string | null },
): DiscordLocation | null {
  if (ref.platform !== DISCORD_PLATFORM) return null;
  const guildId = ref.workspace === DM_WORKSPACE ? null : ref.workspace;
  const loc: DiscordLocation = { guildId, channelId: ref.channel, threadId: ref.thread ?? null };
  return toConversationRef(loc) ? loc : null;
}

/** The channel id messages for this location are posted to: the thread when there is one. */
export function postTargetOf(loc: DiscordLocation): string {
  return loc.threadId ?? loc.channelId;
}
