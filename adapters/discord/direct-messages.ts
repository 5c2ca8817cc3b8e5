import { RESTJSONErrorCodes, Routes } from 'discord.js';
import { z } from 'zod';
import type { DirectMessageCapability, DirectMessageResult } from '../../src/chat/delivery.js';
import type { OutboundMessage } from '../../src/chat/outbound-message.js';
import { TargetGoneError } from '../../src/errors.js';
import { rest, type DiscordRest } from './discord-rest.js';
import { toMessageBodies } from './message-bodies.js';

const dmChannelSchema = z.object({ id: z.string().min(1), type: z.literal(1) });

/** Ids of DM channels already opened, per person (Discord returns the same channel each time; this saves the call). */
const MAX_REMEMBERED = 10_000;

/**
 * Direct messages on Discord, for what only one person may read (a sign-in link): channel messages are public, and
 * outside an interaction there is no ephemeral message. Opens the DM channel (`POST /users/@me/channels`) and posts
 * there through the channel's queue. Discord answers 50007 (Cannot send messages to this user) when the person's DMs
 * are closed to the bot or they share no server with it: `refused`, so the caller can say so where they are.
 */
export function createDirectMessages(discord: DiscordRest): DirectMessageCapability & {
  sendMessage(userId: string, message: OutboundMessage): Promise<DirectMessageResult>;
  channelOf(userId: string): Promise<string>;
} {
  const { api, queue, post } = discord;
  const channels = new Map<string, string>();
  const channelOf = async (userId: string): Promise<string> => {
    const known = channels.get(userId);
    if (known) return known;
    const dm = await rest(
      'DM channel',
      () => api.post(Routes.userChannels(), { body: { recipient_id: userId } }),
      dmChannelSchema,
    );
    if (channels.size >= MAX_REMEMBERED) channels.clear();
    channels.set(userId, dm.id);
    return dm.id;
  };
  const sendMessage = async (userId: string, message: OutboundMessage): Promise<DirectMessageResult> => {
    const channelId = await channelOf(userId);
    const bodies = toMessageBodies(message);
    try {
      const last = await queue.enqueue(channelId, async (send) => {
        let posted = { id: '' };
        for (const body of bodies) posted = await send(() => post(channelId, body));
        return posted;
      });
      return { kind: 'sent', messageId: last.id };
    } catch (err) {
      if (
        err instanceof TargetGoneError &&
        err.platformCode === String(RESTJSONErrorCodes.CannotSendMessagesToThisUser)
      )
        return { kind: 'refused' };
      throw err;
    }
  };
  return {
    sendDirect: (userId, text) => sendMessage(userId, { text }),
    /** A message with buttons too (a held answer's Share / Keep private). */
    sendMessage,
    /** The DM channel with the person (opened once), where files for them alone are posted. */
    channelOf,
  };
}
