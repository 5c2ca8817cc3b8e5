import type { ChannelRef, ConversationRef } from '../../src/chat/conversation-ref.js';

/** The platform name of every Slack ConversationRef. */
export const SLACK_PLATFORM = 'slack';

const TEAM = /^[TE][A-Z0-9]{2,}$/;
/** Public (C), private (G) and DM (D) channel ids. */
const CHANNEL = /^[CDG][A-Z0-9]{2,}$/;
/** A Slack message timestamp, the id of a message within its channel. */
const TS = /^\d{9,}\.\d{6}$/;

/** Where a message lives on Slack: a workspace (team), a channel, and the root ts of a thread in it. */
export interface SlackLocation {
  readonly teamId: string;
  readonly channelId: string;
  /** Root message ts of the thread; null for a channel-level or DM conversation. */
  readonly threadTs: string | null;
}

/** True when `ts` looks like a Slack message timestamp. */
export function isSlackTs(ts: string): boolean {
  return TS.test(ts);
}

/** True for DM channel ids (`D…`). */
export function isDmChannel(channelId: string): boolean {
  return channelId.startsWith('D');
}

/**
 * Encodes a Slack location as a ConversationRef (`slack:<team>:<channel>:<thread ts|->`), so a
 * mention, its twin, a thread reply and a button click in the same place always land in the same
 * conversation. Null when an id is malformed: never trust the wire blindly.
 */
export function toConversationRef(loc: SlackLocation): ConversationRef | null {
  if (!TEAM.test(loc.teamId) || !CHANNEL.test(loc.channelId)) return null;
  if (loc.threadTs !== null && !TS.test(loc.threadTs)) return null;
  return { platform: SLACK_PLATFORM, workspace: loc.teamId, channel: loc.channelId, thread: loc.threadTs };
}

/** The channel part (where slash commands and schedules are scoped); null when malformed. */
export function toChannelRef(teamId: string, channelId: string): ChannelRef | null {
  const ref = toConversationRef({ teamId, channelId, threadTs: null });
  return ref ? { platform: ref.platform, workspace: ref.workspace, channel: ref.channel } : null;
}

/** Decodes a ConversationRef made by toConversationRef; null when it is not a valid Slack ref. */
export function fromConversationRef(
  ref: Pick<ConversationRef, 'platform' | 'workspace' | 'channel'> & { thread?: string | null },
): SlackLocation | null {
  if (ref.platform !== SLACK_PLATFORM) return null;
  const loc: SlackLocation = { teamId: ref.workspace, channelId: ref.channel, threadTs: ref.thread ?? null };
  return toConversationRef(loc) ? loc : null;
}

/** The fields of a message event that decide its conversation. */
export interface MessagePlace {
  readonly teamId: string;
  readonly channelId: string;
  readonly channelType?: string | undefined;
  readonly ts: string;
  readonly threadTs?: string | undefined;
}

/**
 * The conversation a person's message belongs to, per DESIGN.md: in a channel, the thread the
 * message sits in, or the thread rooted at it (a top-level mention starts one); in a DM, the DM
 * itself unless the user threads.
 */
export function conversationOfMessage(place: MessagePlace): ConversationRef | null {
  const isDm = place.channelType === 'im' || isDmChannel(place.channelId);
  const inThread = place.threadTs !== undefined && place.threadTs !== '';
  const threadTs = inThread ? place.threadTs! : isDm ? null : place.ts;
  return toConversationRef({ teamId: place.teamId, channelId: place.channelId, threadTs });
}
