import { DiscordAPIError, RESTJSONErrorCodes, Routes } from 'discord.js';
import { z } from 'zod';
import type {
  ConversationHistory,
  HistoryMessage,
  HistoryPage,
  MissedMessage,
} from '../../src/chat/conversation-history.js';
import type { ConversationRef } from '../../src/chat/conversation-ref.js';
import { AdapterError } from '../../src/errors.js';
import { toAttachments, type DiscordFileDownload } from './discord-attachments.js';
import type { DiscordLocation } from './discord-thread-id.js';
import type { MemberRolesLookup } from './member-roles-lookup.js';
import { rolesOf } from './member-roles.js';
import { stripMention } from './message-handler.js';

const messageSchema = z.object({
  id: z.string(),
  type: z.number().int().default(0),
  content: z.string().default(''),
  timestamp: z.string(),
  author: z.object({
    id: z.string(),
    username: z.string(),
    global_name: z.string().nullable().optional(),
    bot: z.boolean().optional(),
  }),
  member: z.object({ nick: z.string().nullable().optional() }).optional(),
  thread: z.object({ id: z.string(), message_count: z.number().int().optional() }).optional(),
  attachments: z
    .array(
      z.object({
        filename: z.string(),
        size: z.number().int().nonnegative().default(0),
        url: z.string().default(''),
        content_type: z.string().optional(),
      }),
    )
    .default([]),
});
type DiscordMessage = z.infer<typeof messageSchema>;
const pageSchema = z.array(messageSchema);

/** Message types people write (default, reply, slash command, context menu command); the rest are system notices. */
const CONTENT_TYPES = new Set([0, 19, 20, 23]);
/** Discord serves at most 100 messages per request. */
const PAGE_SIZE = 100;

export interface DiscordHistoryOptions {
  /** GET on the REST API (discord.js waits out 429s); failures are thrown as AdapterError with the DiscordAPIError as cause. */
  get(what: string, route: `/${string}`, query?: URLSearchParams): Promise<unknown>;
  botId(): string | null;
  /** The member's server nickname from the gateway cache, without a request; null when unknown. */
  nickname(guildId: string, userId: string): string | null;
  /** Where a conversation lives on Discord; throws for a ref that is not Discord's. */
  locate(conversation: ConversationRef): DiscordLocation;
  /**
   * The author's current roles, for caught-up guild messages: REST messages carry no `member`.
   * Absent: caught-up messages carry no roles (a person allowed only by a role is refused).
   */
  memberRoles?: MemberRolesLookup;
  /** Downloads an attachment, as for live messages; absent: caught-up messages carry no files. */
  downloadFile?: DiscordFileDownload;
}

const byId = (a: DiscordMessage, b: DiscordMessage) =>
  BigInt(a.id) < BigInt(b.id) ? -1 : BigInt(a.id) > BigInt(b.id) ? 1 : 0;

const isUnknownMessage = (err: unknown) =>
  err instanceof AdapterError &&
  err.cause instanceof DiscordAPIError &&
  err.cause.code === RESTJSONErrorCodes.UnknownMessage;

/**
 * Discord history for the tools through GET /channels/{id}/messages (100 per page). A thread
 * reads from its start — the starter message in the parent channel, then the thread's messages
 * paged with `after` — and a channel or DM reads its newest messages paged with `before`. Reply
 * counts come from the thread a message started. Names: server nickname, global name, username.
 */
export function createDiscordHistory(options: DiscordHistoryOptions): ConversationHistory {
  const page = async (channelId: string, params: Record<string, string>): Promise<DiscordMessage[]> => {
    const raw = await options.get('message history', Routes.channelMessages(channelId), new URLSearchParams(params));
    const parsed = pageSchema.safeParse(raw);
    if (!parsed.success)
      throw new AdapterError('Discord message history returned an unexpected response', { cause: parsed.error });
    return parsed.data;
  };

  /** The newest `limit` messages (posted at or after `since`), oldest first. */
  const readLatest = async (
    channelId: string,
    limit: number,
    since?: number,
  ): Promise<{ messages: DiscordMessage[]; truncated: boolean }> => {
    const collected: DiscordMessage[] = [];
    let before: string | null = null;
    let more = true;
    while (more && collected.length < limit) {
      const ask = Math.min(PAGE_SIZE, limit - collected.length);
      const params: Record<string, string> = before ? { limit: String(ask), before } : { limit: String(ask) };
      const got = (await page(channelId, params)).sort(byId).reverse();
      const fresh = since === undefined ? got : got.filter((m) => Date.parse(m.timestamp) >= since);
      collected.push(...fresh);
      more = got.length === ask && fresh.length === got.length;
      before = got.at(-1)?.id ?? null;
    }
    return { messages: collected.slice(0, limit).reverse(), truncated: more || collected.length > limit };
  };

  /** A thread from its start, oldest first, up to `limit` messages. */
  const readFromStart = async (
    channelId: string,
    limit: number,
    first: DiscordMessage[],
  ): Promise<{ messages: DiscordMessage[]; truncated: boolean }> => {
    const { collected, more } = await pagesAfter(channelId, '0', limit, first);
    return { messages: collected.slice(0, limit), truncated: more || collected.length > limit };
  };

  /** Pages forward (`after`) from a message id, oldest first, until `limit` messages or the end. */
  const pagesAfter = async (
    channelId: string,
    afterId: string,
    limit: number,
    first: DiscordMessage[] = [],
  ): Promise<{ collected: DiscordMessage[]; more: boolean }> => {
    const collected = [...first];
    let after = afterId;
    let more = true;
    while (more && collected.length < limit) {
      const ask = Math.min(PAGE_SIZE, limit - collected.length);
      const got = (await page(channelId, { limit: String(ask), after })).sort(byId);
      collected.push(...got);
      more = got.length === ask;
      after = got.at(-1)?.id ?? after;
    }
    return { collected, more };
  };

  const starterOf = async (loc: DiscordLocation & { threadId: string }): Promise<DiscordMessage[]> => {
    try {
      const parsed = messageSchema.safeParse(
        await options.get('thread starter lookup', Routes.channelMessage(loc.channelId, loc.threadId)),
      );
      return parsed.success ? [parsed.data] : [];
    } catch (err) {
      // A thread not started from a message, or whose starter was deleted.
      if (isUnknownMessage(err)) return [];
      throw err;
    }
  };

  const toHistory = (
    loc: DiscordLocation,
    messages: DiscordMessage[],
    truncated: boolean,
    withReplies: boolean,
  ): HistoryPage => {
    const me = options.botId();
    const mapped = messages
      .filter((m) => CONTENT_TYPES.has(m.type))
      .map((m): HistoryMessage => {
        const nick = m.member?.nick ?? (loc.guildId ? options.nickname(loc.guildId, m.author.id) : null);
        const files = m.attachments.map((a) => `[file: ${a.filename}]`).join(' ');
        return {
          id: m.id,
          author: {
            id: m.author.id,
            name: nick ?? m.author.global_name ?? m.author.username,
            isBot: m.author.bot === true,
            isSelf: m.author.id === me,
          },
          time: new Date(m.timestamp).toISOString(),
          text: [m.content, files].filter((t) => t !== '').join('\n'),
          ...(withReplies ? { replyCount: m.thread?.message_count ?? 0 } : {}),
        };
      });
    return { messages: mapped, truncated };
  };

  return {
    async readThread(conversation, { limit }) {
      const loc = options.locate(conversation);
      const threadId = loc.threadId;
      const read = threadId
        ? await readFromStart(threadId, limit, await starterOf({ ...loc, threadId }))
        : await readLatest(loc.channelId, limit);
      return toHistory(loc, read.messages, read.truncated, false);
    },
    async readChannel(conversation, { limit, since }) {
      const loc = options.locate(conversation);
      const read = await readLatest(loc.channelId, limit, since);
      return toHistory(loc, read.messages, read.truncated, true);
    },
    async readAfter(conversation, { afterId, limit }) {
      const loc = options.locate(conversation);
      const me = options.botId();
      const channelId = loc.threadId ?? loc.channelId;
      const { collected, more } = await pagesAfter(channelId, afterId, limit);
      const raw = new Map(collected.map((m) => [m.id, m]));
      const history = toHistory(loc, collected.slice(0, limit), more, false);
      const messages: MissedMessage[] = [];
      for (const h of history.messages) {
        const m = raw.get(h.id);
        const content = m?.content ?? '';
        const mentioned = me !== null && new RegExp(`<@!?${me}>`).test(content);
        const text = me ? stripMention(content, me, null) : content;
        const addressedToBot = !h.author.isBot && (loc.threadId !== null || loc.guildId === null || mentioned);
        if (!addressedToBot) {
          messages.push({ ...h, text, addressedToBot });
          continue;
        }
        // Only messages handed to the core need what the live path gives them: roles cost a request per person.
        const roles =
          loc.guildId !== null && options.memberRoles ? await options.memberRoles(loc.guildId, h.author.id) : [];
        const files =
          options.downloadFile && m && m.attachments.length > 0
            ? toAttachments(
                m.attachments.map((a) => ({
                  name: a.filename,
                  contentType: a.content_type ?? null,
                  size: a.size,
                  url: a.url,
                })),
                options.downloadFile,
              )
            : [];
        messages.push({
          ...h,
          text,
          addressedToBot,
          ...(loc.guildId === null ? { direct: true } : {}),
          ...rolesOf(roles),
          ...(files.length > 0 ? { attachments: files } : {}),
        });
      }
      return { messages, truncated: history.truncated };
    },
  };
}
