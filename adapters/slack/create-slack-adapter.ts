import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as webApi from '@slack/web-api';
import { App, HTTPReceiver, SocketModeReceiver } from './bolt.js';
import { z } from 'zod';
import type { AdapterCapabilities, ChatAdapter, ConnectionState, OutboundMessage } from '../../src/chat/chat-adapter.js';
import type { ChannelRef, ConversationRef } from '../../src/chat/conversation-ref.js';
import type { InboundSink } from '../../src/chat/inbound.js';
import type { PlatformTraffic } from '../../src/chat/platform-traffic.js';
import type { Config } from '../../src/config.js';
import { AdapterError } from '../../src/errors.js';
import { silentLogger, type Logger } from '../../src/logger.js';
import { systemClock, type Clock } from '../../src/clock.js';
import { createEditedStream } from '../../src/chat/edited-stream.js';
import { createNativeStream } from './native-stream.js';
import { ackAfterHandling } from './ack-after-handling.js';
import { registerAssistantEvents } from './assistant-events.js';
import { createAssistantThreads, type SuggestedPrompt } from './assistant-threads.js';
import { registerActions, type AnsweredQuestion } from './actions.js';
import { createBotThreads } from './bot-threads.js';
import { registerEventHandlers, type BotIdentity } from './event-handlers.js';
import { createEventRoutes } from './event-routes.js';
import { createSlackFileDownloader } from './slack-files.js';
import { escapeText } from './mrkdwn.js';
import { sharedPacing, type PostPacer } from '../../src/chat/post-pacer.js';
import { createOutboundQueue, SLACK_MESSAGE_RATE, type PacedSend, type RateLimit } from './outbound-queue.js';
import { explainAuthFailure } from './auth-failure.js';
import { neutraliseBody, neutraliseSpecialMentions } from './special-mentions.js';
import { MAX_MESSAGE_LENGTH, toEditBody, toMessageBodies, toSlackButton, type SlackMessageBody } from './outbound-message.js';
import { boltLogger, callSlack, platformError, retryAfterMs } from './slack-api.js';
import { createSlackHistory } from './slack-history.js';
import { findPostedKeys, outboxMetadata } from './posted-lookup.js';
import { findUnrecordedPreview } from './unrecorded-preview.js';
import { registerScheduleUi } from './schedule-ui.js';
import { registerSlashCommands } from './slash-commands.js';
import { fromConversationRef, isSlackTs, SLACK_PLATFORM, toConversationRef, type SlackLocation } from './slack-thread-id.js';
import { createUserProfiles } from './user-profiles.js';
import { createWorkingIndicator, WORKING_REACTION } from './working-status.js';
import { createKeepAliveFetch } from '../../src/net/keep-alive-fetch.js';

/** `chat.delete` errors that mean this workspace keeps the message: it can be edited, not deleted. */
const SLACK_DELETE_REFUSALS: ReadonlySet<string> = new Set(['cant_delete_message', 'compliance_exports_prevent_deletion']);

/** Timings that production leaves at Slack's values and tests or benchmarks change. */
export interface SlackTuning {
  /** Outbound pace per channel (default: bursts of 3, then 1 message/s). */
  messageRate?: RateLimit;
  /** Delay before the ⏳ reaction appears on the triggering message (default 400 ms; quicker answers get none). */
  workingReactionDelayMs?: number;
  /** Delay before the "Working…" notice with its Stop button appears (default 2 s). */
  workingNoticeDelayMs?: number;
  /** How long a slash command waits for its reply before acknowledging empty (default 2 s; Slack allows 3). */
  commandAckBudgetMs?: number;
  /** Web API retries on network errors and 5xx (429s are waited out per channel instead). */
  webApiRetries?: number;
  /** Longest a message event waits for being stored before it is acknowledged anyway (default 2.5 s; Slack allows 3). */
  eventAckDeadlineMs?: number;
  /** Socket Mode ping timeout, which is also its delay before reconnecting (default 5 s). */
  socketPingTimeoutMs?: number;
  /** Least time between two calls of a streamed answer (default 1 s: `chat.update` at most once a second). */
  streamIntervalMs?: number;
}

export interface SlackAdapterOptions {
  /** SLACK_BOT_TOKEN (`xoxb-…`). */
  botToken: string;
  /** SLACK_APP_TOKEN (`xapp-…`), for Socket Mode. */
  appToken?: string;
  /** SLACK_SIGNING_SECRET, for the HTTP receiver. */
  signingSecret?: string;
  /** SLACK_MODE: `socket` (default, no public URL needed) or `http` (`POST /slack/events`). */
  mode?: 'socket' | 'http';
  /** SLACK_PORT for the HTTP receiver; 0 picks a free port. */
  port?: number;
  /** Interface the HTTP receiver binds to (default: all). */
  host?: string;
  /** SLACK_API_URL: the Web API base, e.g. `http://127.0.0.1:9000/api/`. */
  apiUrl?: string;
  logger?: Logger;
  tuning?: SlackTuning;
  /** Told about every accepted post and every 429 (metrics). */
  traffic?: PlatformTraffic;
  /** Pacing shared with other processes posting as this bot (PostgreSQL); absent: this process paces only its own posts. */
  pacer?: PostPacer;
  /** Offered when someone opens a new assistant thread (`slack.suggestedPrompts`, whose schema has the defaults); absent: none. */
  suggestedPrompts?: readonly SuggestedPrompt[];
  /** Timers for streamed answers (default: the system clock). */
  clock?: Clock;
}

/** The Slack ChatAdapter, plus where the HTTP receiver listens (tests and benchmarks post there). */
export interface SlackAdapter extends ChatAdapter {
  /** The HTTP receiver's port once started in `http` mode, else null. */
  httpPort(): number | null;
}

/** The adapter options from Errand's configuration (SLACK_BOT_TOKEN must be set). */
export function slackOptionsFromConfig(config: Config, logger?: Logger): SlackAdapterOptions {
  if (!config.SLACK_BOT_TOKEN) throw new AdapterError('SLACK_BOT_TOKEN is not set');
  return {
    botToken: config.SLACK_BOT_TOKEN,
    appToken: config.SLACK_APP_TOKEN,
    signingSecret: config.SLACK_SIGNING_SECRET,
    mode: config.SLACK_MODE,
    port: config.SLACK_PORT,
    apiUrl: config.SLACK_API_URL,
    suggestedPrompts: config.file.settings.slack.suggestedPrompts,
    ...(logger ? { logger } : {}),
  };
}

const postedSchema = z.object({ ts: z.string() });
const streamCallSchema = z.object({ ts: z.string().optional() });
/** Streamed text rolls over where the outbox splits a long answer (its 10 % headroom). */
const STREAM_PIECE_LIMIT = Math.floor(MAX_MESSAGE_LENGTH * 0.9);
const okSchema = z.object({ ok: z.literal(true) });
const authSchema = z.object({ user_id: z.string(), bot_id: z.string(), team_id: z.string().optional() });
const WORKING_TEXT = '⏳ Working… press *Stop* to stop me.';

function portOf(server: Server | null): number | null {
  const address = server?.address();
  return address && typeof address === 'object' ? (address as AddressInfo).port : null;
}

/**
 * Errand on Slack through Bolt: mentions, thread replies and DMs become inbound messages; slash
 * commands and button clicks go to the sink; posts are converted to mrkdwn, split, paced per
 * channel and kept in order. Building it connects nothing; `start` checks the token
 * (`auth.test`) and connects Socket Mode or opens the HTTP receiver.
 */
export function createSlackAdapter(options: SlackAdapterOptions): SlackAdapter {
  const logger = (options.logger ?? silentLogger()).child({ platform: SLACK_PLATFORM });
  const tuning = options.tuning ?? {};
  const mode = options.mode ?? 'socket';
  const slackApiUrl = options.apiUrl ? options.apiUrl.replace(/\/*$/, '/') : undefined;
  const boltLog = boltLogger(logger);
  const clientOptions: webApi.WebClientOptions = {
    ...(slackApiUrl ? { slackApiUrl } : {}),
    logger: boltLog,
    rejectRateLimitedCalls: true,
    retryConfig: { retries: tuning.webApiRetries ?? 2, factor: 2, minTimeout: 250, maxTimeout: 2000 },
    timeout: 30_000,
    // Node's http with kept-alive connections instead of the global fetch: about 0.3 ms less CPU per call.
    fetch: createKeepAliveFetch({ readWholeBody: true }),
  };
  const client = new webApi.WebClient(options.botToken, clientOptions);
  const downloadFile = createSlackFileDownloader({ botToken: options.botToken, ...(slackApiUrl ? { apiUrl: slackApiUrl } : {}) });
  const api = <T>(method: string, args: Record<string, unknown>, schema: z.ZodType<T>) => callSlack(method, () => client.apiCall(method, args), schema);

  let sink: InboundSink | null = null;
  let bot: BotIdentity | null = null;
  let app: App | null = null;
  let server: Server | null = null;
  const traffic = options.traffic;
  const queue = createOutboundQueue({
    rate: tuning.messageRate ?? SLACK_MESSAGE_RATE,
    retryAfterMs: (err) => {
      const wait = retryAfterMs(err);
      if (wait !== null) traffic?.rateLimited();
      return wait;
    },
    ...(options.pacer
      ? {
          beforeCall: sharedPacing({
            pacer: options.pacer,
            platform: SLACK_PLATFORM,
            intervalMs: Math.ceil(1000 / (tuning.messageRate ?? SLACK_MESSAGE_RATE).perSecond),
            // The short burst Slack tolerates, which this process's own queue allows too.
            burst: (tuning.messageRate ?? SLACK_MESSAGE_RATE).burst,
            logger,
          }),
        }
      : {}),
  });
  let connection: ConnectionState = { connected: false, detail: 'not started' };
  const botThreads = createBotThreads({
    client,
    bot: () => bot,
    logger,
    known: async (thread) => {
      const ref = toConversationRef(thread);
      return ref !== null && sink !== null && (await sink.knowsConversation(ref));
    },
  });
  const profiles = createUserProfiles(client);
  const capabilities: AdapterCapabilities = { buttons: true, ephemeral: true, maxMessageLength: MAX_MESSAGE_LENGTH };

  const locate = (ref: Pick<ConversationRef, 'platform' | 'workspace' | 'channel'> & { thread?: string | null }): SlackLocation => {
    const loc = fromConversationRef(ref);
    if (!loc) throw new AdapterError(`Not a Slack conversation: ${ref.platform}:${ref.workspace}:${ref.channel}:${ref.thread ?? '-'}`);
    return loc;
  };
  // Every post and edit leaves through these two, so crowd pings are neutralised here once for all.
  const post = async (send: PacedSend, loc: SlackLocation, body: SlackMessageBody, key?: string) => {
    const posted = await send(() =>
      api(
        'chat.postMessage',
        { channel: loc.channelId, ...(loc.threadTs ? { thread_ts: loc.threadTs } : {}), ...neutraliseBody(body), unfurl_links: false, ...(key ? { metadata: outboxMetadata(key) } : {}) },
        postedSchema,
      ),
    );
    traffic?.posted();
    return posted;
  };
  const update = (channelId: string, ts: string, body: SlackMessageBody) =>
    queue.enqueue(channelId, (send) => send(() => api('chat.update', { channel: channelId, ts, ...neutraliseBody(body) }, okSchema)));
  const ignoring = (...codes: string[]) => (err: unknown) => {
    if (!codes.includes(platformError(err) ?? '')) throw err;
  };

  const working = createWorkingIndicator({
    logger,
    reactionDelayMs: tuning.workingReactionDelayMs ?? 400,
    noticeDelayMs: tuning.workingNoticeDelayMs ?? 2000,
    addReaction: (channel, ts) => api('reactions.add', { channel, timestamp: ts, name: WORKING_REACTION }, okSchema).then(() => undefined, ignoring('already_reacted')),
    removeReaction: (channel, ts) => api('reactions.remove', { channel, timestamp: ts, name: WORKING_REACTION }, okSchema).then(() => undefined, ignoring('no_reaction', 'message_not_found')),
    postNotice: (conversation, stopActionId) => {
      const loc = locate(conversation);
      const body: SlackMessageBody = {
        text: WORKING_TEXT,
        blocks: [
          { type: 'section', text: { type: 'mrkdwn', text: WORKING_TEXT } },
          { type: 'actions', elements: [toSlackButton({ actionId: stopActionId, label: 'Stop', style: 'danger' })] },
        ],
      };
      return queue.enqueue(loc.channelId, (send) => post(send, loc, body)).then((m) => m.ts);
    },
    deleteNotice: (channel, ts) => api('chat.delete', { channel, ts }, okSchema).then(() => undefined, ignoring('message_not_found')),
  });

  // Threads of the app's assistant view (DM threads) show a status line instead of the reaction and notice.
  const assistant = createAssistantThreads({
    call: (method, args) => api(method, args, okSchema),
    suggestedPrompts: options.suggestedPrompts ?? [],
    logger,
  });

  const history = createSlackHistory({
    call: (method, args) => client.apiCall(method, args),
    bot: () => bot,
    userName: async (userId) => (await profiles.fetch(userId)).name,
    locate,
    downloadFile,
  });

  const onAnswered = async (a: AnsweredQuestion) => {
    if (!isSlackTs(a.messageTs)) return;
    const question = a.questionText || '…';
    const note = `✅ <@${a.userId}> answered: *${escapeText(a.answer)}*`;
    await update(a.channelId, a.messageTs, {
      text: question,
      blocks: [
        { type: 'section', text: { type: 'mrkdwn', text: question } },
        { type: 'context', elements: [{ type: 'mrkdwn', text: note.slice(0, 3000) }] },
      ],
    });
  };

  const buildApp = (identity: BotIdentity): App => {
    const boltReceiver =
      mode === 'http'
        ? new HTTPReceiver({ signingSecret: options.signingSecret ?? '', endpoints: '/slack/events', logger: boltLog })
        : new SocketModeReceiver({
            appToken: options.appToken ?? '',
            logger: boltLog,
            // apps.connections.open goes to the same API base; its own client keeps the SDK's 429 handling.
            installerOptions: { clientOptions: slackApiUrl ? { slackApiUrl } : {} },
            ...(tuning.socketPingTimeoutMs ? { clientPingTimeout: tuning.socketPingTimeoutMs } : {}),
          });
    // Message events are acknowledged once stored, not before (see ack-after-handling.ts).
    const receiver = ackAfterHandling(boltReceiver, { deadlineMs: tuning.eventAckDeadlineMs ?? 2500, logger });
    const built = new App({ token: options.botToken, botId: identity.botId, botUserId: identity.userId, receiver, logger: boltLog, clientOptions });
    const deps = { sink: () => sink, logger };
    const routes = createEventRoutes(built);
    registerEventHandlers(routes, {
      ...deps,
      bot: () => bot,
      botThreads,
      cachedTimezone: (u) => profiles.cachedTimezone(u),
      downloadFile,
      onHandedOver: (m) => assistant.requested(m.conversation, m.text),
    });
    registerAssistantEvents(routes, { assistant, logger });
    const scheduleUi = registerScheduleUi(built, routes, { ...deps, call: api });
    registerSlashCommands(built, { ...deps, ackBudgetMs: tuning.commandAckBudgetMs ?? 2000, scheduleUi });
    registerActions(built, { ...deps, onAnswered });
    built.error(async (err) => logger.error({ err }, 'Bolt listener error'));
    if (boltReceiver instanceof SocketModeReceiver) {
      // The socket reconnects by itself; between `close` and the next `connected` nothing arrives.
      const socket = boltReceiver.client;
      socket.on('connected', () => (connection = { connected: true }));
      for (const state of ['close', 'reconnecting', 'disconnecting', 'disconnected'] as const) {
        socket.on(state, () => (connection = { connected: false, detail: state === 'close' ? 'socket closed, reconnecting' : `socket ${state}` }));
      }
    }
    return built;
  };

  const postMessage = async (conversation: ConversationRef, message: OutboundMessage) => {
    const loc = locate(conversation);
    const bodies = toMessageBodies(message);
    if (bodies.length === 0) throw new AdapterError('Refusing to post an empty message to Slack.');
    if (loc.threadTs) botThreads.mark(loc.channelId, loc.threadTs);
    const key = message.idempotencyKey;
    const ts = await queue.enqueue(loc.channelId, async (send) => {
      let last = '';
      for (const [i, body] of bodies.entries()) last = (await post(send, loc, body, key && (i === 0 ? key : `${key}.${i}`))).ts;
      return last;
    });
    return { id: ts };
  };
  const editMessage = async (conversation: ConversationRef, messageId: string, message: OutboundMessage) => {
    await update(locate(conversation).channelId, messageId, toEditBody(message));
  };
  const remove = (channelId: string, ts: string) => queue.enqueue(channelId, (send) => send(() => api('chat.delete', { channel: channelId, ts }, okSchema))).then(() => undefined);

  return {
    platform: SLACK_PLATFORM,
    capabilities,
    async start(inbound) {
      if (mode === 'http' && !options.signingSecret) throw new AdapterError('SLACK_SIGNING_SECRET is required in http mode');
      if (mode === 'socket' && !options.appToken) throw new AdapterError('SLACK_APP_TOKEN is required in socket mode');
      const auth = await callSlack('auth.test', () => client.auth.test(), authSchema).catch((err: unknown) => {
        throw new AdapterError(explainAuthFailure(err, slackApiUrl ?? 'https://slack.com/api/'), { cause: err });
      });
      bot = { userId: auth.user_id, botId: auth.bot_id };
      sink = inbound;
      app = buildApp(bot);
      try {
        if (mode === 'http') {
          server = (await app.start({ port: options.port ?? 3000, ...(options.host ? { host: options.host } : {}) })) as Server;
          connection = { connected: true, detail: `receiving events on port ${portOf(server)}` };
        } else await app.start();
      } catch (err) {
        const hint = mode === 'http' ? `Is SLACK_PORT ${options.port ?? 3000} free?` : 'Check SLACK_APP_TOKEN (an xapp- token with connections:write) and that Socket Mode is enabled for the app.';
        throw new AdapterError(`Slack ${mode === 'http' ? 'HTTP receiver' : 'Socket Mode'} failed to start: ${err instanceof Error ? err.message : String(err)}. ${hint}`, { cause: err });
      }
      logger.info({ botUserId: bot.userId, team: auth.team_id, mode, port: portOf(server) }, 'Slack connected');
    },
    async stop() {
      await working.stopAll();
      await assistant.stopAll();
      await Promise.race([queue.drain(), new Promise((r) => setTimeout(r, 5000).unref())]);
      const running = app;
      const listening = server;
      app = null;
      server = null;
      sink = null;
      if (!running) return;
      const stopped = running.stop();
      // A delivery answered while stopping leaves its keep-alive connection open, and Node then waits out
      // the receiver's keep-alive timeout (5 s) before close() resolves; nothing more is read on it.
      listening?.closeIdleConnections();
      const idle = setInterval(() => listening?.closeIdleConnections(), 50);
      try {
        await stopped;
      } finally {
        clearInterval(idle);
      }
      // After the socket's own disconnect events, which would otherwise have the last word.
      connection = { connected: false, detail: 'stopped' };
    },
    connectionState: () => connection,
    httpPort: () => portOf(server),
    postMessage,
    editMessage,
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
    openStream(conversation, recipientUserId, hooks) {
      const loc = locate(conversation);
      const clock = options.clock ?? systemClock;
      const intervalMs = tuning.streamIntervalMs ?? 1000;
      const edited = () =>
        createEditedStream({
          post: async (text, key) => (await postMessage(conversation, { text, ...(key ? { idempotencyKey: key } : {}) })).id,
          edit: (id, text) => editMessage(conversation, id, { text }),
          remove: (id) => remove(loc.channelId, id),
          ...(hooks ? { beforeMessage: hooks.beforeMessage } : {}),
          pieceLimit: STREAM_PIECE_LIMIT,
          intervalMs,
          clock,
          logger,
        });
      // Slack streams only in threads (and outside DMs only to a named recipient); anywhere else one post is edited.
      const dm = loc.channelId.startsWith('D');
      if (!loc.threadTs || (!dm && !recipientUserId)) return edited();
      if (loc.threadTs) botThreads.mark(loc.channelId, loc.threadTs);
      return createNativeStream({
        channelId: loc.channelId,
        threadTs: loc.threadTs,
        recipient: recipientUserId ? { teamId: loc.teamId, userId: recipientUserId } : null,
        call: (method, args) => queue.enqueue(loc.channelId, (send) => send(() => api(method, args, streamCallSchema))),
        fallback: edited,
        remove: (id) => remove(loc.channelId, id),
        ...(hooks ? { beforeMessage: hooks.beforeMessage } : {}),
        intervalMs,
        clock,
        logger,
      });
    },
    async setWorking(conversation, status) {
      if (assistant.isAssistantThread(conversation)) assistant.setWorking(conversation, status);
      else working.set(conversation, status);
    },
    async openThread(channel: ChannelRef, messageId: string) {
      const loc = locate({ ...channel, thread: null });
      const ref = toConversationRef({ ...loc, threadTs: messageId });
      if (!ref) throw new AdapterError(`Not a Slack message ts: ${messageId}`);
      botThreads.mark(loc.channelId, messageId);
      return ref;
    },
    async postEphemeral(conversation, userId, text) {
      const loc = locate(conversation);
      const [first, ...rest] = toMessageBodies({ text });
      if (!first) return;
      if (rest.length > 0) first.text = `${first.text.slice(0, MAX_MESSAGE_LENGTH - 1)}…`;
      await queue.enqueue(loc.channelId, (send) =>
        send(() => api('chat.postEphemeral', { channel: loc.channelId, user: userId, ...(loc.threadTs ? { thread_ts: loc.threadTs } : {}), text: neutraliseSpecialMentions(first.text) }, okSchema)),
      );
      traffic?.posted();
    },
    async fetchUserTimezone(userId) {
      return (await profiles.fetch(userId)).tz;
    },
    async findPosted(conversation, keys) {
      const loc = locate(conversation);
      return findPostedKeys({ call: (method, args) => api(method, args, z.unknown()), botId: () => bot?.botId ?? null }, { channelId: loc.channelId, threadTs: loc.threadTs }, keys);
    },
    async findUnrecordedPreview(conversation, probe) {
      const loc = locate(conversation);
      return findUnrecordedPreview({ call: (method, args) => api(method, args, z.unknown()), botId: () => bot?.botId ?? null }, { channelId: loc.channelId, threadTs: loc.threadTs }, probe);
    },
    history,
  };
}
