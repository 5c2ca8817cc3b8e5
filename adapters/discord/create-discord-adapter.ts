import { Client, DiscordAPIError, Events, GatewayIntentBits, Partials, REST, RESTEvents, RESTJSONErrorCodes, Routes, Status, type Message, type RESTOptions } from 'discord.js';
import { z } from 'zod';
import type { AdapterCapabilities, ChatAdapter, OutboundMessage, PostedMessage } from '../../src/chat/chat-adapter.js';
import type { ChannelRef, ConversationRef } from '../../src/chat/conversation-ref.js';
import type { InboundSink } from '../../src/chat/inbound.js';
import type { PlatformTraffic } from '../../src/chat/platform-traffic.js';
import type { GatewayGate } from '../../src/chat/gateway-gate.js';
import { sharedPacing, type PostPacer } from '../../src/chat/post-pacer.js';
import type { Config } from '../../src/config.js';
import { callPlatform } from '../../src/chat/platform-call.js';
import { AdapterError } from '../../src/errors.js';
import { silentLogger, type Logger } from '../../src/logger.js';
import { systemClock, type Clock } from '../../src/clock.js';
import { createEditedStream } from '../../src/chat/edited-stream.js';
import { createBotThreads } from './bot-threads.js';
import { createDiscordHistory } from './discord-history.js';
import { createMemberRolesLookup } from './member-roles-lookup.js';
import { DISCORD_PLATFORM, fromConversationRef, postTargetOf, toConversationRef, type DiscordLocation } from './discord-thread-id.js';
import { handleInteraction } from './interactions.js';
import { createScheduleModals } from './schedule-modal.js';
import { inviteUrl } from './invite-url.js';
import { toInboundMessage } from './message-handler.js';
import { createDiscordFileDownloader } from './discord-attachments.js';
import { createOutboundQueue, DISCORD_MESSAGE_LIMIT, sharedIntervalMs } from './outbound-queue.js';
import { MAX_MESSAGE_LENGTH, toEditBody, toMessageBodies, withNonces, type MessageBody } from './outbound-message.js';
import { findUnrecordedPreview } from './unrecorded-preview.js';
import { registerCommands } from './slash-commands.js';
import { connectClient } from './connect.js';
import { createWorkingIndicator } from './typing.js';
import { createKeepAliveFetch } from '../../src/net/keep-alive-fetch.js';

/** Timings that production leaves at Discord's values and tests shorten. */
export interface DiscordTuning {
  messageLimit?: { count: number; windowMs: number };
  typingIntervalMs?: number;
  /** Delay before "typing…" first shows (default 400 ms; quicker answers show none). */
  typingDelayMs?: number;
  workingNoticeDelayMs?: number;
  deferAfterMs?: number;
  readyTimeoutMs?: number;
  /** REST retries on 5xx/network errors (429s are always waited out by discord.js). */
  restRetries?: number;
  /** Least time between two edits of a streamed answer (default 1.5 s). */
  streamIntervalMs?: number;
}

/** A streamed answer's message is edited at most this often: Discord allows about 5 calls per 5 s per channel. */
const STREAM_INTERVAL_MS = 1500;
/** Streamed text rolls over where the outbox splits a long answer (its 10 % headroom). */
const STREAM_PIECE_LIMIT = Math.floor(MAX_MESSAGE_LENGTH * 0.9);

export interface DiscordAdapterOptions {
  token: string;
  /** REST base (DISCORD_API_URL), e.g. `http://127.0.0.1:8080/api`; the gateway URL follows from it. */
  apiUrl?: string;
  /** DISCORD_THREADS: open a thread per mention (default true). */
  threads?: boolean;
  /** DISCORD_GUILD_ID: register slash commands in this guild only (instantly available). */
  guildId?: string;
  logger?: Logger;
  tuning?: DiscordTuning;
  /** Told about every accepted post and every 429 (metrics). */
  traffic?: PlatformTraffic;
  /** Timers for streamed answers (default: the system clock). */
  clock?: Clock;
  /**
   * Several processes as one bot (PostgreSQL): only the gate's holder connects the gateway (and so hears
   * messages and interactions, and registers the slash commands); every process posts through REST.
   * Absent: this process connects the gateway at start, as the only one.
   */
  gateway?: GatewayGate;
  /** Pacing shared with other processes posting as this bot; absent: this process paces only its own posts. */
  pacer?: PostPacer;
}

/** The adapter options from Errand's configuration (DISCORD_TOKEN must be set). */
export function discordOptionsFromConfig(config: Config, logger?: Logger): DiscordAdapterOptions {
  if (!config.DISCORD_TOKEN) throw new AdapterError('DISCORD_TOKEN is not set');
  return { token: config.DISCORD_TOKEN, apiUrl: config.DISCORD_API_URL, threads: config.DISCORD_THREADS, guildId: config.DISCORD_GUILD_ID, ...(logger ? { logger } : {}) };
}

const postedSchema = z.object({ id: z.string() });
const botUserSchema = z.object({ id: z.string() });
const threadSchema = z.object({ id: z.string(), parent_id: z.string().nullable().optional() });
const WORKING_TEXT = '⏳ Working… press **Stop** to stop me.';

/**
 * Discord errors that say a channel or thread cannot take the bot's posts and will not by itself:
 * Unknown Channel (deleted), Missing Access, Missing Permissions, Cannot send messages to this user
 * (DMs closed), an archived or locked thread. Unknown Message is left out: it is about one
 * message, not the place. Retrying never helps with these.
 */
export const TARGET_GONE_CODES: ReadonlySet<number | string> = new Set<number | string>([
  RESTJSONErrorCodes.UnknownChannel,
  RESTJSONErrorCodes.MissingAccess,
  RESTJSONErrorCodes.MissingPermissions,
  RESTJSONErrorCodes.CannotSendMessagesToThisUser,
  RESTJSONErrorCodes.InvalidActionOnArchivedThread,
  RESTJSONErrorCodes.ThreadLocked,
]);

/** Wraps a REST failure as AdapterError (TargetGoneError for TARGET_GONE_CODES), keeping Discord's error code in the message and the cause. */
function rest<T>(what: string, call: () => Promise<unknown>, schema: z.ZodType<T>): Promise<T> {
  return callPlatform(`Discord ${what}`, call, schema, (err) => ({
    code: err instanceof DiscordAPIError ? String(err.code) : null,
    detail: err instanceof DiscordAPIError ? `${err.status} code ${String(err.code)}: ${err.message}` : err instanceof Error ? err.message : String(err),
    targetGone: err instanceof DiscordAPIError && TARGET_GONE_CODES.has(err.code),
  }));
}

/**
 * Errand on Discord through discord.js 14: mentions, thread replies and DMs become inbound
 * messages; slash commands and buttons go to the sink; posts are split, rate limited per channel
 * and kept in order. Building it connects nothing; `start` logs in and registers the commands.
 */
export function createDiscordAdapter(options: DiscordAdapterOptions): ChatAdapter {
  const logger = (options.logger ?? silentLogger()).child({ platform: DISCORD_PLATFORM });
  const tuning = options.tuning ?? {};
  const restOptions = {
    ...(options.apiUrl ? { api: options.apiUrl.replace(/\/+$/, '') } : {}),
    retries: tuning.restRetries ?? 3,
    // Node's http with kept-alive connections instead of undici's request: less CPU per call. Multipart
    // bodies (attachments) go to the global fetch. Read whole: a 429 dropped unread would hold its connection.
    makeRequest: createKeepAliveFetch({ readWholeBody: true }) as unknown as RESTOptions['makeRequest'],
  };
  // A gateway client per connection: a destroyed discord.js client is not reliably reusable, and a standby has none.
  const newClient = () =>
    new Client({
      intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent, GatewayIntentBits.DirectMessages],
      partials: [Partials.Channel, Partials.Message],
      rest: restOptions,
    });
  let client: Client | null = null;
  // Every post, edit and read goes through this REST client, with or without a gateway connection.
  const api = new REST(restOptions).setToken(options.token);
  /** The bot's user id: from READY once connected, else from `GET /users/@me` (a standby). */
  let restBotId: string | null = null;
  const botId = () => client?.user?.id ?? restBotId;
  const botThreads = createBotThreads(api, botId);
  const modals = createScheduleModals();
  const limit = tuning.messageLimit ?? DISCORD_MESSAGE_LIMIT;
  const queue = createOutboundQueue(
    limit,
    Date.now,
    options.pacer ? sharedPacing({ pacer: options.pacer, platform: DISCORD_PLATFORM, intervalMs: sharedIntervalMs(limit), logger }) : undefined,
  );
  const gate = options.gateway;
  const capabilities: AdapterCapabilities = { buttons: true, ephemeral: false, maxMessageLength: MAX_MESSAGE_LENGTH };

  const locate = (ref: Pick<ConversationRef, 'platform' | 'workspace' | 'channel'> & { thread?: string | null }): DiscordLocation => {
    const loc = fromConversationRef(ref);
    if (!loc) throw new AdapterError(`Not a Discord conversation: ${ref.platform}:${ref.workspace}:${ref.channel}:${ref.thread ?? '-'}`);
    return loc;
  };
  const traffic = options.traffic;
  const post = async (channelId: string, body: MessageBody) => {
    const posted = await rest('post', () => api.post(Routes.channelMessages(channelId), { body }), postedSchema);
    traffic?.posted();
    return posted;
  };
  // discord.js waits out a 429 by itself; every response is visible only through this event.
  if (traffic) {
    api.on(RESTEvents.Response, (_request, response) => {
      if (response.status === 429) traffic.rateLimited();
    });
  }
  let started = false;

  const working = createWorkingIndicator({
    logger,
    typingIntervalMs: tuning.typingIntervalMs,
    typingDelayMs: tuning.typingDelayMs,
    noticeDelayMs: tuning.workingNoticeDelayMs,
    sendTyping: async (channelId) => void (await api.post(Routes.channelTyping(channelId))),
    postNotice: (channelId, stopActionId) =>
      queue
        .enqueue(channelId, (send) =>
          send(() => post(channelId, toMessageBodies({ text: WORKING_TEXT, buttons: [{ actionId: stopActionId, label: 'Stop', style: 'danger' }] })[0]!)),
        )
        .then((m) => m.id),
    deleteNotice: async (channelId, id) => void (await api.delete(Routes.channelMessage(channelId, id))),
  });

  const downloadFile = createDiscordFileDownloader();
  const get = (what: string, route: `/${string}`, query?: URLSearchParams) => rest(what, () => api.get(route, query ? { query } : {}), z.unknown());
  const history = createDiscordHistory({
    get,
    botId,
    nickname: (guildId, userId) => client?.guilds.cache.get(guildId)?.members.cache.get(userId)?.nickname ?? null,
    locate,
    memberRoles: createMemberRolesLookup({ get, now: () => (options.clock ?? systemClock).now() }),
    downloadFile,
  });

  const onMessage = (sink: InboundSink, message: Message) => {
    const me = botId();
    if (!me) return;
    toInboundMessage(message, { botId: me, threads: options.threads ?? true, botThreads, downloadFile })
      .then((inbound) => (inbound ? sink.onMessage(inbound) : undefined))
      .catch((err: unknown) => logger.error({ err, messageId: message.id }, 'handling a Discord message failed'));
  };

  const postMessage = async (conversation: ConversationRef, message: OutboundMessage): Promise<PostedMessage> => {
    const loc = locate(conversation);
    const target = postTargetOf(loc);
    // With a nonce and enforce_nonce, a repeated post (a REST retry, a restart) returns the first message.
    const bodies = withNonces(toMessageBodies(message), message.idempotencyKey);
    if (bodies.length === 0) throw new AdapterError('Refusing to post an empty message to Discord.');
    const last = await queue.enqueue(target, async (send) => {
      let posted = { id: '' };
      for (const body of bodies) posted = await send(() => post(target, body));
      return posted;
    });
    if (loc.threadId) botThreads.mark(loc.threadId);
    return { id: last.id };
  };

  const editMessage = async (conversation: ConversationRef, messageId: string, message: OutboundMessage) => {
    const target = postTargetOf(locate(conversation));
    const body = toEditBody(message);
    await queue.enqueue(target, () => rest('edit', () => api.patch(Routes.channelMessage(target, messageId), { body }), z.unknown()));
  };

  /** Wires a fresh gateway client to the sink, logs it in (resolving once ready) and registers the slash commands. */
  const connectGateway = async (sink: InboundSink) => {
    const c = newClient();
    c.on(Events.MessageCreate, (message) => onMessage(sink, message));
    c.on(Events.InteractionCreate, (interaction) => {
      handleInteraction(interaction, { sink, logger, deferAfterMs: tuning.deferAfterMs, markThread: botThreads.mark, modals }).catch((err: unknown) =>
        logger.error({ err, interactionId: interaction.id }, 'answering a Discord interaction failed'),
      );
    });
    c.on(Events.ThreadMembersUpdate, (added, removed, thread) => {
      const me = botId();
      if (me && added.has(me)) botThreads.mark(thread.id);
      if (me && removed.has(me)) botThreads.unmark(thread.id);
    });
    c.on(Events.Error, (err) => logger.error({ err }, 'Discord client error'));
    c.on(Events.Warn, (message) => logger.warn({ message }, 'Discord client warning'));
    client = c;
    try {
      await connectClient(c, options.token, tuning.readyTimeoutMs ?? 30_000, options.apiUrl);
    } catch (err) {
      if (client === c) client = null;
      throw err;
    }
    const applicationId = c.application?.id ?? botId() ?? '';
    logger.info({ botUserId: botId(), inviteUrl: inviteUrl(applicationId) }, 'Discord connected. Add Errand to a server with the invite URL.');
    await registerCommands(api, applicationId, options.guildId).catch((err: unknown) =>
      logger.error({ err, guildId: options.guildId ?? null }, 'registering Discord slash commands failed; mentions still work'),
    );
  };

  /** Closes the gateway session (another process may open its own now); posting through REST goes on. */
  const disconnectGateway = async () => {
    const c = client;
    client = null;
    if (c) {
      logger.info('closing the Discord gateway session');
      await c.destroy();
    }
  };

  return {
    platform: DISCORD_PLATFORM,
    capabilities,
    async start(sink) {
      api.on(RESTEvents.RateLimited, (info) => logger.debug({ route: info.route, retryAfter: info.retryAfter }, 'Discord rate limit: waiting'));
      if (!gate) {
        await connectGateway(sink);
        started = true;
        return;
      }
      // A standby still needs the bot's id (its own messages in history, thread membership) and a valid token.
      restBotId = (await rest('bot identity', () => api.get(Routes.user('@me')), botUserSchema)).id;
      started = true;
      await gate.join({ acquired: () => connectGateway(sink), lost: disconnectGateway });
    },
    async stop() {
      await working.stopAll();
      await Promise.race([queue.drain(), new Promise((r) => setTimeout(r, 5000).unref())]);
      started = false;
      // Disconnect before giving the gate up, so two sessions never overlap.
      await disconnectGateway();
      await gate?.leave();
      api.clearHashSweeper();
      api.clearHandlerSweeper();
    },
    connectionState() {
      if (!started) return { connected: false, detail: 'not started' };
      // A standby is healthy: it posts through REST and takes the gateway over when the holder goes.
      if (gate && !gate.held) return { connected: true, gateway: 'standby' };
      const held = gate ? ({ gateway: 'held' } as const) : {};
      if (!client) return { connected: false, detail: 'gateway connecting', ...held };
      // Each shard's status follows its gateway session: Connecting/Resuming after a drop, Ready again once resumed.
      const down = [...client.ws.shards.values()].find((shard) => shard.status !== Status.Ready);
      return down ? { connected: false, detail: `gateway ${Status[down.status]?.toLowerCase() ?? 'not ready'}`, ...held } : { connected: true, ...held };
    },
    postMessage,
    editMessage,
    async deleteMessage(conversation, messageId) {
      const target = postTargetOf(locate(conversation));
      try {
        await queue.enqueue(target, () => rest('delete', () => api.delete(Routes.channelMessage(target, messageId)), z.unknown()));
        return true;
      } catch (err) {
        // A bot may always delete its own messages: the only refusal is one that is already gone.
        const cause = err instanceof AdapterError ? err.cause : null;
        if (cause instanceof DiscordAPIError && cause.code === RESTJSONErrorCodes.UnknownMessage) return true;
        throw err;
      }
    },
    async findUnrecordedPreview(conversation, probe) {
      return findUnrecordedPreview(
        {
          repost: async (text, key) => (await postMessage(conversation, { text, idempotencyKey: key })).id,
          get: (route, query) => rest('message lookup', () => api.get(route, { query }), z.unknown()),
          botId,
          now: () => (options.clock ?? systemClock).now(),
        },
        postTargetOf(locate(conversation)),
        probe,
      );
    },
    openStream(conversation, _recipientUserId, hooks) {
      const target = postTargetOf(locate(conversation));
      // One message edited as the text grows, a new one past the split point; every call through the channel's queue.
      return createEditedStream({
        post: async (text, key) => (await postMessage(conversation, { text, ...(key ? { idempotencyKey: key } : {}) })).id,
        edit: (id, text) => editMessage(conversation, id, { text }),
        remove: (id) => queue.enqueue(target, () => rest('delete', () => api.delete(Routes.channelMessage(target, id)), z.unknown())).then(() => undefined),
        ...(hooks ? { beforeMessage: hooks.beforeMessage } : {}),
        pieceLimit: STREAM_PIECE_LIMIT,
        intervalMs: tuning.streamIntervalMs ?? STREAM_INTERVAL_MS,
        clock: options.clock ?? systemClock,
        logger,
      });
    },
    async setWorking(conversation, status) {
      working.set(postTargetOf(locate(conversation)), status);
    },
    async openThread(channel: ChannelRef, messageId: string, name: string) {
      const loc = locate({ ...channel, thread: null });
      // DMs have no threads, and DISCORD_THREADS=false means the bot talks in the channel: the work goes there.
      if (loc.guildId === null || options.threads === false) return { ...channel, thread: null };
      const body = { name: name.trim().slice(0, 100) || 'Errand', auto_archive_duration: 1440 };
      let threadId: string;
      try {
        threadId = (await rest('thread creation', () => api.post(Routes.threads(loc.channelId, messageId), { body }), threadSchema)).id;
      } catch (err) {
        const cause = err instanceof AdapterError ? err.cause : null;
        if (!(cause instanceof DiscordAPIError) || cause.code !== RESTJSONErrorCodes.ThreadAlreadyCreatedForMessage) throw err;
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
    history,
  };
}
