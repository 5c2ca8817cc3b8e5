import type { ChannelRef } from '../chat/conversation-ref.js';
import type { ChannelSettings } from './team-settings.js';

/** What the `channels` key of the configuration file sets for one channel. */
export interface ChannelOverrides {
  /** Extra instructions for the system prompt there. */
  readonly prompt?: string;
  /** The model to use there instead of OPENAI_MODEL. */
  readonly model?: string;
}

/**
 * The settings of the channel a conversation lives in (a thread's parent channel: adapters keep it in
 * `channel`), keyed as the file writes them: `slack:C…`, `discord:<channel id>`. Empty when none are set.
 */
export function channelOverridesFor(
  channels: ChannelSettings,
  ref: Pick<ChannelRef, 'platform' | 'channel'>,
): ChannelOverrides {
  return channels[`${ref.platform}:${ref.channel}`] ?? {};
}
