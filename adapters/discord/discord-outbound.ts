import { DiscordAPIError, RESTJSONErrorCodes, Routes } from 'discord.js';
import { z } from 'zod';
import type { OutboundMessage, PostedMessage } from '../../src/chat/chat-adapter.js';
import type { ChannelRef, ConversationRef } from '../../src/chat/conversation-ref.js';
import { AdapterError } from '../../src/errors.js';
import type { BotThreads } from './bot-threads.js';
import { rest, type DiscordRest } from './discord-rest.js';
import { fromConversationRef, postTargetOf, toConversationRef, type DiscordLocation } from './discord-thread-id.js';
import { toEditBody, toMessageBody, withNonces } from './message-bodies.js';

const threadSchema = z.object({ id: z.string(), parent_id: z.string().nullable().optional() });

/** Where a conversation is on Discord; throws for a conversation of another platform. */
export function locate(
  ref: Pick<ConversationRef, 'platform' | 'workspace' | 'channel'> & { thread?: string | null },
): DiscordLocation {
  const loc = fromConversationRef(ref);
  if (!loc)
    throw new AdapterError(
      `Not a Discord conversation: ${ref.platform}:${ref.workspace}:${ref.channel}:${ref.thread ?? '-'}`,
    );
  return loc;
}

/** Every write of a message on Discord, each through the channel's queue. */
export interface DiscordOutbound {
  postMessage(conversation: ConversationRef, message: OutboundMessage): Promise<PostedMessage>;
  editMessage(conversation: ConversationRef, messageId: string, message: OutboundMessage): Promise<void>;
  /** Deletes a message in a channel; errors are the platform's. */
  remove(channelId: string, messageId: string): Promise<void>;
  /** True once the message is gone (or was already). */
  deleteMessage(conversation: ConversationRef, messageId: string): Promise<boolean>;
  openThread(channel: ChannelRef, messageId: string, name: string): Promise<ConversationRef>;
  postEphemeral(conversation: ConversationRef, userId: string, text: string): Promise<void>;
}

/**
 * Posting, editing, deleting and opening threads on Discord. Long answers are split in order; each
 * piece carries a nonce, so a repeated post (a REST retry, a restart) returns the first message.
 */
export function createDiscordOutbound(deps: {
  readonly rest: DiscordRest;
  readonly botThreads: BotThreads;
  readonly threads: boolean | undefined;
}): DiscordOutbound {
  const { api, queue, post } = deps.rest;
  const { botThreads } = deps;
  const remove = (channelId: string, messageId: string) =>
    queue
      .enqueue(channelId, () =>
        rest('delete', () => api.delete(Routes.channelMessage(channelId, messageId)), z.unknown()),
      )
      .then(() => undefined);
  const postMessage = async (conversation: ConversationRef, message: OutboundMessage): Promise<PostedMessage> => {
    const loc = locate(conversation);
    const target = postTargetOf(loc);
    // With a nonce and enforce_nonce, a repeated post (a REST retry, a restart) returns the first message.
    // One message: the outbox posts the pieces `render` made, so a text over the limit is refused, never split.
    const body = toMessageBody(message);
    if (!body) throw new AdapterError('Refusing to post an empty message to Discord.');
    const [withNonce] = withNonces([body], message.idempotencyKey);
    const last = await queue.enqueue(target, (send) => send(() => post(target, withNonce!)));
    if (loc.threadId) botThreads.mark(loc.threadId);
    return { id: last.id };
  };
  return {
    postMessage,
    async editMessage(conversation, messageId, message) {
      const target = postTargetOf(locate(conversation));
      const body = toEditBody(message);
      await queue.enqueue(target, () =>
        rest('edit', () => api.patch(Routes.channelMessage(target, messageId), { body }), z.unknown()),
      );
    },
    remove,
    async deleteMessage(conversation, messageId) {
      const target = postTargetOf(locate(conversation));
      try {
        await queue.enqueue(target, () =>
          rest('delete', () => api.delete(Routes.channelMessage(target, messageId)), z.unknown()),
        );
        return true;
      } catch (err) {
        // A bot may always delete its own messages: the only refusal is one that is already gone.
        const cause = err instanceof AdapterError ? err.cause : null;
        if (cause instanceof DiscordAPIError && cause.code === RESTJSONErrorCodes.UnknownMessage) return true;
        throw err;
      }
    },
    async openThread(channel, messageId, name) {
      const loc = locate({ ...channel, thread: null });
      // DMs have no threads, and DISCORD_THREADS=false means the bot talks in the channel: the work goes there.
      if (loc.guildId === null || deps.threads === false) return { ...channel, thread: null };
      const body = { name: name.trim().slice(0, 100) || 'Errand', auto_archive_duration: 1440 };
      let threadId: string;
      try {
        threadId = (
          await rest(
            'thread creation',
            () => api.post(Routes.threads(loc.channelId, messageId), { body }),
            threadSchema,
          )
        ).id;
      } catch (err) {
        const cause = err instanceof AdapterError ? err.cause : null;
        if (!(cause instanceof DiscordAPIError) || cause.code !== RESTJSONErrorCodes.ThreadAlreadyCreatedForMessage)
          throw err;
        const existing = await rest('thread lookup', () => api.get(Routes.channel(messageId)), threadSchema);
        if (existing.parent_id !== loc.channelId) throw err;
        threadId = existing.id;
      }
      botThreads.mark(threadId);
      const ref = toConversationRef({ ...loc, threadId });
      if (!ref) throw new AdapterError(`Discord returned a malformed thread id: ${threadId}`);
      return ref;
    },
    async postEphemeral(conversation, userId, text) {
      await postMessage(conversation, { text, mentionUserId: userId });
    },
  };
}
