import { z } from 'zod';
import type { InboundMessage, InboundSink } from '../../src/chat/inbound.js';
import type { Logger } from '../../src/logger.js';
import type { BotThreads } from './bot-threads.js';
import type { EventRoutes } from './event-routes.js';
import { conversationOfMessage, isDmChannel } from './slack-thread-id.js';
import { slackFileSchema, toAttachments, type SlackFileDownload } from './slack-files.js';

/** Subtypes that are still a person talking; every other subtype (edits, joins, bot posts…) is ignored. */
export const PERSON_SUBTYPES: ReadonlySet<string> = new Set(['thread_broadcast', 'file_share', 'me_message']);

const messageEventSchema = z.object({
  type: z.enum(['message', 'app_mention']),
  subtype: z.string().optional(),
  channel: z.string().min(1),
  channel_type: z.string().optional(),
  user: z.string().optional(),
  bot_id: z.string().optional(),
  text: z.string().default(''),
  ts: z.string().min(1),
  thread_ts: z.string().optional(),
  user_profile: z.object({ display_name: z.string().optional(), real_name: z.string().optional() }).optional(),
  /** Present with subtype `file_share` (and on the `app_mention` twin of such a message). */
  files: z.array(slackFileSchema).optional().catch(undefined),
});

export type SlackMessageEvent = z.infer<typeof messageEventSchema>;

/** The bot's own identity, known once `auth.test` answered. */
export interface BotIdentity {
  readonly userId: string;
  readonly botId: string;
}

export interface EventContext {
  readonly teamId: string;
  readonly bot: BotIdentity;
  readonly botThreads: BotThreads;
  /** A cached timezone for a user, when one is known without a call. */
  readonly cachedTimezone?: (userId: string) => string | undefined;
  /** Downloads a file's `url_private` with the bot token; absent: files are not passed on. */
  readonly downloadFile?: SlackFileDownload;
}

/** The bot's mention pattern, built once per bot user id (the id never changes while the process runs). */
let mentionPattern: { botUserId: string; pattern: RegExp } | null = null;

function mentionOf(botUserId: string): RegExp {
  if (mentionPattern?.botUserId !== botUserId)
    mentionPattern = { botUserId, pattern: new RegExp(`<@${botUserId}(?:\\|[^>]*)?>`, 'g') };
  return mentionPattern.pattern;
}

/** Removes the bot's mention (`<@U…>` or `<@U…|name>`) and decodes Slack's `&amp;`/`&lt;`/`&gt;`. */
export function cleanText(text: string, botUserId: string): string {
  return text
    .replace(mentionOf(botUserId), ' ')
    .replace(/[ \t]{2,}/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .trim();
}

/**
 * The checks below that need no parsing, made first: every post of the bot comes back to it as an
 * event (one per message it answers), and neither those nor other bots' posts are worth validating.
 */
function isNotAPerson(raw: unknown, botUserId: string): boolean {
  if (typeof raw !== 'object' || raw === null) return false;
  const e = raw as Record<string, unknown>;
  return (
    e.bot_id !== undefined || e.user === botUserId || (typeof e.subtype === 'string' && !PERSON_SUBTYPES.has(e.subtype))
  );
}

/**
 * Decides whether a `message`/`app_mention` event is a person talking to the bot, and where:
 * DMs always; in channels a mention (which starts or joins a thread) or a reply in a thread the
 * bot is part of. Bot posts, the bot's own echoes, edits and deletions give null. Both twins of
 * a mention give the same InboundMessage (same ts, same conversation, same text).
 */
export async function toInboundMessage(raw: unknown, ctx: EventContext): Promise<InboundMessage | null> {
  if (isNotAPerson(raw, ctx.bot.userId)) return null;
  const parsed = messageEventSchema.safeParse(raw);
  if (!parsed.success) return null;
  const e = parsed.data;
  if (e.subtype !== undefined && !PERSON_SUBTYPES.has(e.subtype)) return null;
  if (e.bot_id !== undefined || !e.user || e.user === ctx.bot.userId) return null;
  const isDm = e.channel_type === 'im' || isDmChannel(e.channel);
  const mentioned = e.type === 'app_mention' || e.text.includes(`<@${ctx.bot.userId}`);
  const threadTs = e.thread_ts && e.thread_ts !== e.ts ? e.thread_ts : undefined;
  if (!isDm && !mentioned) {
    if (!threadTs || !(await ctx.botThreads.includesBot(e.channel, threadTs, ctx.teamId))) return null;
  }
  const conversation = conversationOfMessage({
    teamId: ctx.teamId,
    channelId: e.channel,
    channelType: e.channel_type,
    ts: e.ts,
    threadTs,
  });
  if (!conversation) return null;
  if (conversation.thread) ctx.botThreads.mark(e.channel, conversation.thread);
  const userName = e.user_profile?.display_name || e.user_profile?.real_name;
  const timezone = ctx.cachedTimezone?.(e.user);
  const files = ctx.downloadFile && e.files && e.files.length > 0 ? toAttachments(e.files, ctx.downloadFile) : [];
  return {
    messageId: e.ts,
    conversation,
    userId: e.user,
    text: cleanText(e.text, ctx.bot.userId),
    ...(userName ? { userName } : {}),
    ...(timezone ? { timezone } : {}),
    ...(isDm ? { direct: true } : {}),
    ...(files.length > 0 ? { attachments: files } : {}),
  };
}

export interface EventHandlerDeps {
  readonly sink: () => InboundSink | null;
  readonly bot: () => BotIdentity | null;
  readonly botThreads: BotThreads;
  readonly cachedTimezone: (userId: string) => string | undefined;
  readonly downloadFile?: SlackFileDownload;
  readonly logger: Logger;
  /** Told about each new message handed to the core (not its twins or redeliveries), e.g. to title an assistant thread. */
  readonly onHandedOver?: (inbound: InboundMessage) => void;
}

const bodySchema = z.object({ team_id: z.string().min(1) });

/**
 * Messages remembered for the cheap twin check. Twins arrive together; a later redelivery whose
 * entry is gone meets the core's durable dedupe, so a longer memory would only sit in the idle heap.
 */
const RECENT_MESSAGES = 1000;

/**
 * Wires `app_mention` and `message` events to the sink. The listener resolves once the sink has
 * stored the message, and the receiver acknowledges the event only then (ack-after-handling.ts). Twins and redeliveries of a message already handed over (or in flight) are dropped
 * here, cheaply; the core de-duplicates again, durably.
 */
export function registerEventHandlers(routes: EventRoutes, deps: EventHandlerDeps): void {
  const handled = new Map<string, Promise<void>>();
  const onEvent = async (event: unknown, body: unknown) => {
    const sink = deps.sink();
    const bot = deps.bot();
    const team = bodySchema.safeParse(body);
    if (!sink || !bot || !team.success) return;
    const inbound = await toInboundMessage(event, {
      teamId: team.data.team_id,
      bot,
      botThreads: deps.botThreads,
      cachedTimezone: deps.cachedTimezone,
      ...(deps.downloadFile ? { downloadFile: deps.downloadFile } : {}),
    });
    if (!inbound) return;
    const key = `${inbound.conversation.workspace}/${inbound.conversation.channel}/${inbound.messageId}`;
    const earlier = handled.get(key);
    if (earlier) return earlier;
    const delivery = sink.onMessage(inbound).catch((err: unknown) => {
      handled.delete(key);
      throw err;
    });
    handled.set(key, delivery);
    deps.onHandedOver?.(inbound);
    if (handled.size > RECENT_MESSAGES) handled.delete(handled.keys().next().value!);
    return delivery;
  };
  const listener = async ({ event, body }: { event: unknown; body: unknown }) => {
    await onEvent(event, body).catch((err: unknown) =>
      deps.logger.error({ err }, 'handing a Slack message to the core failed'),
    );
  };
  routes.on('app_mention', listener);
  routes.on('message', listener);
}
