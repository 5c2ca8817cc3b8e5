import { z } from 'zod';
import type {
  ConversationHistory,
  HistoryMessage,
  HistoryPage,
  MissedMessage,
} from '../../src/chat/conversation-history.js';
import type { ConversationRef } from '../../src/chat/conversation-ref.js';
import { RateLimitError } from '../../src/errors.js';
import { cleanText, PERSON_SUBTYPES } from './event-handlers.js';
import { callSlack, retryAfterMs } from './slack-api.js';
import { slackFileSchema, toAttachments, type SlackFileDownload } from './slack-files.js';
import { isDmChannel, type SlackLocation } from './slack-thread-id.js';

const slackMessageSchema = z.object({
  ts: z.string(),
  user: z.string().optional(),
  bot_id: z.string().optional(),
  username: z.string().optional(),
  bot_profile: z.object({ name: z.string().optional() }).optional(),
  subtype: z.string().optional(),
  text: z.string().optional(),
  reply_count: z.number().int().optional(),
  // Named in listings as they are; read as the live path's files (slackFileSchema) only for caught-up messages.
  files: z.array(z.object({ name: z.string().optional() }).passthrough()).optional(),
});
type SlackMessage = z.infer<typeof slackMessageSchema>;

const pageSchema = z.object({
  messages: z.array(slackMessageSchema).default([]),
  has_more: z.boolean().optional(),
  response_metadata: z.object({ next_cursor: z.string().optional() }).optional(),
});
type Page = z.infer<typeof pageSchema>;

export interface SlackHistoryOptions {
  /** Calls a Web API method as the bot (the adapter's WebClient). */
  call(method: 'conversations.replies' | 'conversations.history', args: Record<string, unknown>): Promise<unknown>;
  /** The bot's user and bot ids once connected. */
  bot(): { userId: string; botId: string } | null;
  /** A user's display name (cached by the adapter); null when unknown. May throw: the id is shown then. */
  userName(userId: string): Promise<string | null>;
  /** Where a conversation lives on Slack; throws for a ref that is not Slack's. */
  locate(conversation: ConversationRef): SlackLocation;
  /** Downloads a file with the bot token, as for live messages; absent: caught-up messages carry no files. */
  downloadFile?: SlackFileDownload;
  /** Messages asked for per call (Slack recommends at most 200). */
  pageSize?: number;
  /** 429s waited out in a row before giving up. */
  maxRateLimitRetries?: number;
  sleep?: (ms: number) => Promise<void>;
}

const MENTION = /<@([UW][A-Z0-9]+)(?:\|[^>]*)?>/g;

/** Slack's `ts` (seconds.micros) as an ISO time. */
export function slackTsToIso(ts: string): string {
  return new Date(Math.floor(Number(ts) * 1000)).toISOString();
}

const nextCursor = (page: Page): string | null => {
  const c = page.response_metadata?.next_cursor;
  return c !== undefined && c !== '' ? c : null;
};

/**
 * Slack history for the tools: `conversations.replies` for a thread (oldest first, the root
 * repeated on every page is kept once) and `conversations.history` for a channel or DM (newest
 * first, reversed). Follows `next_cursor` until the limit, waits out 429s for Retry-After, and
 * names authors by display name, with `<@U…>` mentions in texts turned into `@name`.
 */
export function createSlackHistory(options: SlackHistoryOptions): ConversationHistory {
  const pageSize = options.pageSize ?? 200;
  const maxRetries = options.maxRateLimitRetries ?? 5;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));

  const fetchPage = async (
    method: 'conversations.replies' | 'conversations.history',
    args: Record<string, unknown>,
  ): Promise<Page> => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await callSlack(method, () => options.call(method, args), pageSchema);
      } catch (err) {
        const wait = retryAfterMs(err);
        if (wait === null) throw err;
        if (attempt >= maxRetries)
          throw new RateLimitError(`Slack kept rate limiting ${method} after ${attempt + 1} attempts`, wait, {
            cause: err,
          });
        await sleep(wait);
      }
    }
  };

  /** The newest `limit` messages of a channel (only those since `oldest` when given), oldest first. */
  const readLatest = async (
    channel: string,
    limit: number,
    oldest?: number,
  ): Promise<{ messages: SlackMessage[]; truncated: boolean }> => {
    const collected: SlackMessage[] = [];
    let cursor: string | null = null;
    let more = false;
    do {
      const page = await fetchPage('conversations.history', {
        channel,
        limit: Math.min(pageSize, limit - collected.length),
        ...(oldest !== undefined ? { oldest: (oldest / 1000).toFixed(6), inclusive: true } : {}),
        ...(cursor ? { cursor } : {}),
      });
      collected.push(...page.messages);
      cursor = nextCursor(page);
      more = cursor !== null || page.has_more === true;
    } while (cursor && collected.length < limit);
    const newest = collected.slice(0, limit);
    return {
      messages: newest.sort((a, b) => Number(a.ts) - Number(b.ts)),
      truncated: more || collected.length > limit,
    };
  };

  /** A thread from its root, oldest first, up to `limit` messages. */
  const readReplies = async (
    channel: string,
    threadTs: string,
    limit: number,
  ): Promise<{ messages: SlackMessage[]; truncated: boolean }> => {
    const byTs = new Map<string, SlackMessage>();
    let cursor: string | null = null;
    do {
      const page = await fetchPage('conversations.replies', {
        channel,
        ts: threadTs,
        limit: Math.min(pageSize, limit - byTs.size + 1),
        ...(cursor ? { cursor } : {}),
      });
      for (const m of page.messages) if (!byTs.has(m.ts)) byTs.set(m.ts, m);
      cursor = nextCursor(page);
    } while (cursor && byTs.size < limit);
    const all = [...byTs.values()].sort((a, b) => Number(a.ts) - Number(b.ts));
    return { messages: all.slice(0, limit), truncated: cursor !== null || all.length > limit };
  };

  /** Messages after `afterTs` (exclusive), oldest first: a thread's replies, or a DM's messages. */
  const readAfter = async (
    loc: SlackLocation,
    afterTs: string,
    limit: number,
  ): Promise<{ messages: SlackMessage[]; truncated: boolean }> => {
    const method = loc.threadTs ? 'conversations.replies' : 'conversations.history';
    const byTs = new Map<string, SlackMessage>();
    let cursor: string | null = null;
    do {
      const page = await fetchPage(method, {
        channel: loc.channelId,
        ...(loc.threadTs ? { ts: loc.threadTs } : {}),
        oldest: afterTs,
        limit: Math.min(pageSize, limit + 1),
        ...(cursor ? { cursor } : {}),
      });
      // conversations.replies repeats the thread's root on every page, whatever `oldest` says.
      for (const m of page.messages) if (Number(m.ts) > Number(afterTs) && m.ts !== loc.threadTs) byTs.set(m.ts, m);
      cursor = nextCursor(page);
    } while (cursor && byTs.size < limit);
    const all = [...byTs.values()].sort((a, b) => Number(a.ts) - Number(b.ts));
    return { messages: all.slice(0, limit), truncated: cursor !== null || all.length > limit };
  };

  const names = async (ids: Iterable<string>): Promise<Map<string, string>> => {
    const unique = [...new Set(ids)];
    const resolved = await Promise.all(unique.map((id) => options.userName(id).catch(() => null)));
    return new Map(unique.flatMap((id, i) => (resolved[i] ? [[id, resolved[i]] as [string, string]] : [])));
  };

  const toHistory = async (
    messages: SlackMessage[],
    truncated: boolean,
    withReplies: boolean,
  ): Promise<HistoryPage> => {
    const bot = options.bot();
    const mentioned = messages.flatMap((m) => [...(m.text ?? '').matchAll(MENTION)].map((x) => x[1]!));
    // Bots carry their app's name; people are looked up.
    const known = await names([...messages.flatMap((m) => (m.user && !m.bot_id ? [m.user] : [])), ...mentioned]);
    const mapped = messages.map((m): HistoryMessage => {
      const isSelf = bot !== null && (m.user === bot.userId || m.bot_id === bot.botId);
      const id = m.user ?? m.bot_id ?? 'unknown';
      const name = m.bot_profile?.name ?? m.username ?? (m.user ? known.get(m.user) : undefined) ?? id;
      const files = (m.files ?? []).map((f) => `[file: ${f.name ?? 'unnamed'}]`).join(' ');
      const text = [
        (m.text ?? '').replace(MENTION, (whole, uid: string) => (known.has(uid) ? `@${known.get(uid)!}` : whole)),
        files,
      ]
        .filter((t) => t !== '')
        .join('\n');
      return {
        id: m.ts,
        author: { id, name, isBot: isSelf || m.bot_id !== undefined || m.subtype === 'bot_message', isSelf },
        time: slackTsToIso(m.ts),
        text,
        ...(withReplies ? { replyCount: m.reply_count ?? 0 } : {}),
      };
    });
    return { messages: mapped, truncated };
  };

  return {
    async readThread(conversation, { limit }) {
      const loc = options.locate(conversation);
      const read = loc.threadTs
        ? await readReplies(loc.channelId, loc.threadTs, limit)
        : await readLatest(loc.channelId, limit);
      return toHistory(read.messages, read.truncated, false);
    },
    async readChannel(conversation, { limit, since }) {
      const loc = options.locate(conversation);
      const read = await readLatest(loc.channelId, limit, since);
      return toHistory(read.messages, read.truncated, true);
    },
    async readAfter(conversation, { afterId, limit }) {
      const loc = options.locate(conversation);
      const bot = options.bot();
      const read = await readAfter(loc, afterId, limit);
      const people = new Map(read.messages.map((m) => [m.ts, m]));
      const page = await toHistory(read.messages, read.truncated, false);
      const messages = page.messages.map((h): MissedMessage => {
        const raw = people.get(h.id)!;
        const person = (raw.subtype === undefined || PERSON_SUBTYPES.has(raw.subtype)) && !h.author.isBot;
        const mentioned = bot !== null && (raw.text ?? '').includes(`<@${bot.userId}`);
        const direct = isDmChannel(loc.channelId);
        const readable = (raw.files ?? []).flatMap((f) => {
          const file = slackFileSchema.safeParse(f);
          return file.success ? [file.data] : [];
        });
        const files = options.downloadFile && readable.length > 0 ? toAttachments(readable, options.downloadFile) : [];
        return {
          ...h,
          text: bot ? cleanText(raw.text ?? '', bot.userId) : (raw.text ?? ''),
          addressedToBot: person && (loc.threadTs !== null || direct || mentioned),
          ...(direct ? { direct: true } : {}),
          ...(files.length > 0 ? { attachments: files } : {}),
        };
      });
      return { messages, truncated: page.truncated };
    },
  };
}
