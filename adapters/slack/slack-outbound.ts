import { z } from 'zod';
import type { OutboundMessage } from '../../src/chat/chat-adapter.js';
import type { ConversationRef } from '../../src/chat/conversation-ref.js';
import type { PlatformTraffic } from '../../src/chat/platform-traffic.js';
import { AdapterError } from '../../src/errors.js';
import type { BotThreads } from './bot-threads.js';
import {
  MAX_MESSAGE_LENGTH,
  toEditBody,
  toMessageBodies,
  toMessageBody,
  type SlackMessageBody,
} from './message-bodies.js';
import type { OutboundQueue, PacedSend } from './outbound-queue.js';
import { outboxMetadata } from './posted-lookup.js';
import type { SlackCall } from './slack-call.js';
import { platformError } from './slack-api.js';
import { fromConversationRef, type SlackLocation } from './slack-thread-id.js';
import { neutraliseBody, neutraliseSpecialMentions } from './special-mentions.js';

/** `chat.delete` errors that mean this workspace keeps the message: it can be edited, not deleted. */
const SLACK_DELETE_REFUSALS: ReadonlySet<string> = new Set([
  'cant_delete_message',
  'compliance_exports_prevent_deletion',
]);

const postedSchema = z.object({ ts: z.string() });
/** `{ ok: true }`: the answer of every Slack write that returns nothing else of use. */
export const okSchema = z.object({ ok: z.literal(true) });

/** Where a conversation is on Slack; throws for a conversation of another platform. */
export function locate(
  ref: Pick<ConversationRef, 'platform' | 'workspace' | 'channel'> & { thread?: string | null },
): SlackLocation {
  const loc = fromConversationRef(ref);
  if (!loc)
    throw new AdapterError(
      `Not a Slack conversation: ${ref.platform}:${ref.workspace}:${ref.channel}:${ref.thread ?? '-'}`,
    );
  return loc;
}

export interface SlackOutboundDeps {
  readonly api: SlackCall;
  readonly queue: OutboundQueue;
  readonly botThreads: BotThreads;
  readonly traffic?: PlatformTraffic | undefined;
}

/** Every write of a message on Slack, each paced through the channel's queue. */
export interface SlackOutbound {
  /** Posts one body within a paced send (the caller holds the channel's turn); `key` tags it for recovery. */
  post(send: PacedSend, loc: SlackLocation, body: SlackMessageBody, key?: string): Promise<{ ts: string }>;
  /** Replaces a message's body. */
  update(channelId: string, ts: string, body: SlackMessageBody): Promise<unknown>;
  /** Deletes a message; errors are the platform's. */
  remove(channelId: string, ts: string): Promise<void>;
  postMessage(conversation: ConversationRef, message: OutboundMessage): Promise<{ id: string }>;
  editMessage(conversation: ConversationRef, messageId: string, message: OutboundMessage): Promise<void>;
  /** True once the message is gone (or was already); false when the workspace refuses deletion. */
  deleteMessage(conversation: ConversationRef, messageId: string): Promise<boolean>;
  postEphemeral(conversation: ConversationRef, userId: string, text: string): Promise<void>;
}

/**
 * Posting, editing and deleting on Slack. Every post and edit leaves through `post` and `update`,
 * so crowd pings are neutralised here once for all; a post is one message (the outbox posts rendered pieces).
 */
export function createSlackOutbound(deps: SlackOutboundDeps): SlackOutbound {
  const { api, queue, botThreads, traffic } = deps;
  const post = async (send: PacedSend, loc: SlackLocation, body: SlackMessageBody, key?: string) => {
    const posted = await send(() =>
      api(
        'chat.postMessage',
        {
          channel: loc.channelId,
          ...(loc.threadTs ? { thread_ts: loc.threadTs } : {}),
          ...neutraliseBody(body),
          unfurl_links: false,
          ...(key ? { metadata: outboxMetadata(key) } : {}),
        },
        postedSchema,
      ),
    );
    traffic?.posted();
    return posted;
  };
  const update = (channelId: string, ts: string, body: SlackMessageBody) =>
    queue.enqueue(channelId, (send) =>
      send(() => api('chat.update', { channel: channelId, ts, ...neutraliseBody(body) }, okSchema)),
    );
  const remove = (channelId: string, ts: string) =>
    queue
      .enqueue(channelId, (send) => send(() => api('chat.delete', { channel: channelId, ts }, okSchema)))
      .then(() => undefined);

  return {
    post,
    update,
    remove,
    async postMessage(conversation, message) {
      const loc = locate(conversation);
      // One message: the outbox posts the pieces `render` made, so a text over the limit is refused, never split.
      const body = toMessageBody(message);
      if (!body) throw new AdapterError('Refusing to post an empty message to Slack.');
      if (loc.threadTs) botThreads.mark(loc.channelId, loc.threadTs);
      const ts = await queue.enqueue(
        loc.channelId,
        async (send) => (await post(send, loc, body, message.idempotencyKey)).ts,
      );
      return { id: ts };
    },
    async editMessage(conversation, messageId, message) {
      await update(locate(conversation).channelId, messageId, toEditBody(message));
    },
    async deleteMessage(conversation, messageId) {
      try {
        await remove(locate(conversation).channelId, messageId);
        return true;
      } catch (err) {
        const code = platformError(err);
        if (code === 'message_not_found') return true;
        // A workspace that keeps every message (retention, exports) refuses deletion: the caller marks it instead.
        if (code !== null && SLACK_DELETE_REFUSALS.has(code)) return false;
        throw err;
      }
    },
    async postEphemeral(conversation, userId, text) {
      const loc = locate(conversation);
      const [first, ...rest] = toMessageBodies({ text });
      if (!first) return;
      if (rest.length > 0) first.text = `${first.text.slice(0, MAX_MESSAGE_LENGTH - 1)}…`;
      await queue.enqueue(loc.channelId, (send) =>
        send(() =>
          api(
            'chat.postEphemeral',
            {
              channel: loc.channelId,
              user: userId,
              ...(loc.threadTs ? { thread_ts: loc.threadTs } : {}),
              text: neutraliseSpecialMentions(first.text),
            },
            okSchema,
          ),
        ),
      );
      traffic?.posted();
    },
  };
}
