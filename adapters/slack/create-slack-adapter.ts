import { z } from 'zod';
import type { ChannelRef } from '../../src/chat/conversation-ref.js';
import type { InboundSink } from '../../src/chat/inbound.js';
import type { SurfaceSink } from '../../src/chat/surface-sink.js';
import { AdapterError } from '../../src/errors.js';
import { silentLogger } from '../../src/logger.js';
import { systemClock } from '../../src/clock.js';
import { createAgentSessions } from './agent-sessions.js';
import { createStoppedStreams } from './agent-session-events.js';
import { createBotThreads } from './bot-threads.js';
import type { BotIdentity } from './event-handlers.js';
import { explainAuthFailure } from './auth-failure.js';
import { MAX_MESSAGE_LENGTH, renderPieces } from './message-bodies.js';
import { findPostedKeys } from './posted-lookup.js';
import { callSlack } from './slack-api.js';
import type { SlackAdapter, SlackAdapterOptions } from './slack-adapter-options.js';
import { createSlackClient } from './slack-client.js';
import { createSlackFileDownloader } from './slack-files.js';
import { createSlackFilePosts } from './slack-file-posts.js';
import { createSlackHistory } from './slack-history.js';
import { registerSlackListeners } from './slack-listeners.js';
import { createSlackOutbound, locate } from './slack-outbound.js';
import { createSlackPresence } from './slack-presence.js';
import { createSlackReceiver } from './slack-receiver.js';
import { createSlackStreams } from './slack-streams.js';
import { SLACK_PLATFORM, toConversationRef } from './slack-thread-id.js';
import { findUnrecordedPreview } from './unrecorded-preview.js';
import { createSlackPrivateFiles } from './private-files.js';
import { createSlackPrivateAnswers } from './private-answers.js';
import { createUserProfiles } from './user-profiles.js';

export {
  slackOptionsFromConfig,
  type SlackAdapter,
  type SlackAdapterOptions,
  type SlackTuning,
} from './slack-adapter-options.js';

/** How long a shutdown waits for Slack's last calls (statuses cleared, queued posts sent) before it stops receiving. */
const STOP_WAIT_MS = 5000;
const authSchema = z.object({ user_id: z.string(), bot_id: z.string(), team_id: z.string().optional() });

/**
 * Errand on Slack through Bolt: mentions, thread replies and DMs become inbound messages; slash
 * commands and button clicks go to the sink; posts are converted to mrkdwn, split, paced per
 * channel and kept in order. Building it connects nothing; `start` checks the token
 * (`auth.test`) and connects Socket Mode or opens the HTTP receiver. This file only assembles the
 * parts: the client (slack-client), posting (slack-outbound), working status (slack-presence),
 * streams (slack-streams), the receiver (slack-receiver) and its listeners (slack-listeners).
 */
export function createSlackAdapter(options: SlackAdapterOptions): SlackAdapter {
  const logger = (options.logger ?? silentLogger()).child({ platform: SLACK_PLATFORM });
  const tuning = options.tuning ?? {};
  const mode = options.mode ?? 'socket';
  const slack = createSlackClient(options, logger);
  const { client, api, call, queue, slackApiUrl } = slack;
  const downloadFile = createSlackFileDownloader({
    botToken: options.botToken,
    ...(slackApiUrl ? { apiUrl: slackApiUrl } : {}),
  });

  let sink: InboundSink | null = null;
  let surfaces: SurfaceSink | null = null;
  let bot: BotIdentity | null = null;
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
  const outbound = createSlackOutbound({ api, queue, botThreads, traffic: options.traffic });
  const presence = createSlackPresence({
    api,
    queue,
    outbound,
    tuning,
    suggestedPrompts: options.suggestedPrompts ?? [],
    logger,
  });
  // Slack's Agent Sessions of Errand's threads, and the streams its Stop on them ended.
  const sessions = createAgentSessions({ call: api, logger });
  const stoppedStreams = createStoppedStreams();
  const history = createSlackHistory({
    call,
    bot: () => bot,
    userName: async (userId) => (await profiles.fetch(userId)).name,
    locate,
    downloadFile,
  });
  const receiver = createSlackReceiver({
    options,
    client: slack,
    logger,
    register: (app) =>
      registerSlackListeners(app, {
        sink: () => sink,
        surfaces: () => surfaces,
        bot: () => bot,
        botThreads,
        cachedTimezone: (u) => profiles.cachedTimezone(u),
        downloadFile,
        assistant: presence.assistant,
        stoppedStreams,
        api,
        outbound,
        commandAckBudgetMs: tuning.commandAckBudgetMs ?? 2000,
        logger,
      }),
  });
  const lookups = {
    call: (method: string, args: Record<string, unknown>) => api(method, args, z.unknown()),
    botId: () => bot?.botId ?? null,
  };

  return {
    platform: SLACK_PLATFORM,
    maxMessageLength: MAX_MESSAGE_LENGTH,
    render: (text, mentionUserId) => renderPieces(text, mentionUserId),
    privateNotices: true,
    capabilities: {
      stream: {
        open: createSlackStreams({
          api,
          queue,
          outbound,
          botThreads,
          intervalMs: tuning.streamIntervalMs ?? 1000,
          taskDisplay: options.taskDisplay ?? 'timeline',
          clock: options.clock ?? systemClock,
          logger,
          sessions,
          stoppedStreams,
        }),
      },
      delete: { deleteMessage: outbound.deleteMessage },
      postedLookup: {
        async findPosted(conversation, keys) {
          const loc = locate(conversation);
          return findPostedKeys(lookups, { channelId: loc.channelId, threadTs: loc.threadTs }, keys);
        },
      },
      previewLookup: {
        async findUnrecordedPreview(conversation, probe) {
          const loc = locate(conversation);
          return findUnrecordedPreview(lookups, { channelId: loc.channelId, threadTs: loc.threadTs }, probe);
        },
      },
      history,
      timezone: { fetchUserTimezone: async (userId) => (await profiles.fetch(userId)).tz },
      files: createSlackFilePosts({
        api,
        queue,
        apiUrl: slackApiUrl,
        maxFileBytes: options.maxFileBytes,
        traffic: options.traffic,
      }),
      session: { setSession: async (conversation, update) => sessions.set(conversation, update) },
      privateAnswers: createSlackPrivateAnswers({ api, queue }),
      // Files from one person's private material: into their DM with the bot, the choice shown ephemerally (private-files.ts).
      privateFiles: createSlackPrivateFiles({
        api,
        queue,
        logger,
        files: createSlackFilePosts({
          api,
          queue,
          apiUrl: slackApiUrl,
          maxFileBytes: options.maxFileBytes,
          traffic: options.traffic,
        }),
        answers: createSlackPrivateAnswers({ api, queue }),
      }),
    },
    async start(inbound, surfaceSink) {
      if (mode === 'http' && !options.signingSecret)
        throw new AdapterError('SLACK_SIGNING_SECRET is required in http mode');
      if (mode === 'socket' && !options.appToken) throw new AdapterError('SLACK_APP_TOKEN is required in socket mode');
      const auth = await callSlack('auth.test', () => client.auth.test(), authSchema).catch((err: unknown) => {
        throw new AdapterError(explainAuthFailure(err, slackApiUrl ?? 'https://slack.com/api/'), { cause: err });
      });
      bot = { userId: auth.user_id, botId: auth.bot_id };
      sink = inbound;
      surfaces = surfaceSink ?? null;
      await receiver.start(bot);
      logger.info({ botUserId: bot.userId, team: auth.team_id, mode, port: receiver.httpPort() }, 'Slack connected');
    },
    async stop() {
      // The last statuses cleared and the queued calls sent, within one bound: a call Slack holds (it answers at its
      // own 30 s timeout) queues the clearing of a status behind it, which would otherwise hold the shutdown that long.
      const lastCalls = (async () => {
        await presence.stopAll();
        await sessions.stopAll();
        await queue.drain();
      })().catch((err: unknown) => logger.warn({ err }, "Slack's last calls at shutdown failed; stopping anyway"));
      await Promise.race([lastCalls, new Promise((r) => setTimeout(r, STOP_WAIT_MS).unref())]);
      sink = null;
      surfaces = null;
      await receiver.stop();
    },
    connectionState: () => receiver.connectionState(),
    httpPort: () => receiver.httpPort(),
    postMessage: outbound.postMessage,
    editMessage: outbound.editMessage,
    async setWorking(conversation, status) {
      presence.setWorking(conversation, status);
    },
    async openThread(channel: ChannelRef, messageId: string) {
      const loc = locate({ ...channel, thread: null });
      const ref = toConversationRef({ ...loc, threadTs: messageId });
      if (!ref) throw new AdapterError(`Not a Slack message ts: ${messageId}`);
      botThreads.mark(loc.channelId, messageId);
      return ref;
    },
    postEphemeral: outbound.postEphemeral,
  };
}
