import { Routes } from 'discord.js';
import { z } from 'zod';
import type { AnswerStreamHooks } from '../../src/chat/answer-stream.js';
import type { UnrecordedPreview } from '../../src/chat/delivery.js';
import type { ChatAdapter } from '../../src/chat/chat-adapter.js';
import type { ConversationRef } from '../../src/chat/conversation-ref.js';
import { createEditedStream } from '../../src/chat/edited-stream.js';
import { systemClock } from '../../src/clock.js';
import { silentLogger } from '../../src/logger.js';
import { createBotThreads } from './bot-threads.js';
import type { DiscordAdapterOptions } from './discord-adapter-options.js';
import { createDiscordFileDownloader } from './discord-attachments.js';
import { createDiscordGateway } from './discord-gateway.js';
import { createDiscordHistory } from './discord-history.js';
import { createDiscordOutbound, locate } from './discord-outbound.js';
import { createDiscordFilePosts } from './discord-file-posts.js';
import { createDiscordRest, rest } from './discord-rest.js';
import { createDirectMessages } from './direct-messages.js';
import { DISCORD_PLATFORM, postTargetOf } from './discord-thread-id.js';
import { createMemberRolesLookup } from './member-roles-lookup.js';
import { MAX_MESSAGE_LENGTH, renderPieces, toEditBody, toMessageBodies } from './message-bodies.js';
import { createScheduleModals } from './schedule-modal.js';
import { createWorkingIndicator } from './typing.js';
import { findUnrecordedPreview } from './unrecorded-preview.js';
import { createDiscordPrivateAnswers } from './private-answers.js';
import { createDiscordPrivateFiles } from './private-files.js';

export { discordOptionsFromConfig, type DiscordAdapterOptions, type DiscordTuning } from './discord-adapter-options.js';
export { TARGET_GONE_CODES } from './discord-rest.js';

/** A streamed answer's message is edited at most this often: Discord allows about 5 calls per 5 s per channel. */
const STREAM_INTERVAL_MS = 1500;

/**
 * Errand on Discord through discord.js 14: mentions, thread replies and DMs become inbound
 * messages; slash commands and buttons go to the sink; posts are split, rate limited per channel
 * and kept in order. Building it connects nothing; `start` logs in and registers the commands.
 * This file assembles the parts: REST and pacing (discord-rest), posting (discord-outbound) and
 * the gateway (discord-gateway); working status and streams are small enough to wire here.
 */
export function createDiscordAdapter(options: DiscordAdapterOptions): ChatAdapter {
  const logger = (options.logger ?? silentLogger()).child({ platform: DISCORD_PLATFORM });
  const tuning = options.tuning ?? {};
  const discord = createDiscordRest(options, logger);
  const { api, queue, post } = discord;
  const botId = () => gateway.botId();
  const botThreads = createBotThreads(api, botId);
  const downloadFile = createDiscordFileDownloader({ apiUrl: options.apiUrl });
  const gateway = createDiscordGateway({
    options,
    rest: discord,
    botThreads,
    modals: createScheduleModals(),
    downloadFile,
    logger,
  });
  const outbound = createDiscordOutbound({ rest: discord, botThreads, threads: options.threads });
  const directMessage = createDirectMessages(discord);

  const working = createWorkingIndicator({
    logger,
    typingIntervalMs: tuning.typingIntervalMs,
    typingDelayMs: tuning.typingDelayMs,
    noticeDelayMs: tuning.workingNoticeDelayMs,
    sendTyping: async (channelId) => void (await api.post(Routes.channelTyping(channelId))),
    postNotice: (channelId, stopActionId, text) =>
      queue
        .enqueue(channelId, (send) =>
          send(() =>
            post(
              channelId,
              toMessageBodies({ text, buttons: [{ actionId: stopActionId, label: 'Stop', style: 'danger' }] })[0]!,
            ),
          ),
        )
        .then((m) => m.id),
    editNotice: (channelId, id, stopActionId, text) =>
      queue.enqueue(channelId, () =>
        rest(
          'edit',
          () =>
            api.patch(Routes.channelMessage(channelId, id), {
              body: toEditBody({ text, buttons: [{ actionId: stopActionId, label: 'Stop', style: 'danger' }] }),
            }),
          z.unknown(),
        ).then(() => undefined),
      ),
    deleteNotice: async (channelId, id) => void (await api.delete(Routes.channelMessage(channelId, id))),
  });

  const get = (what: string, route: `/${string}`, query?: URLSearchParams) =>
    rest(what, () => api.get(route, query ? { query } : {}), z.unknown());
  const history = createDiscordHistory({
    get,
    botId,
    nickname: gateway.nickname,
    locate,
    memberRoles: createMemberRolesLookup({ get, now: () => (options.clock ?? systemClock).now() }),
    downloadFile,
  });

  // Roles as they are now, read at each ask (no reuse window): a role taken away counts at once.
  const currentRoles = createMemberRolesLookup({ get, now: () => (options.clock ?? systemClock).now(), ttlMs: 0 });
  const memberRoles = { rolesOf: (guildId: string, userId: string) => currentRoles(guildId, userId) };

  const previewLookup = {
    findUnrecordedPreview: (conversation: ConversationRef, probe: UnrecordedPreview) =>
      findUnrecordedPreview(
        {
          repost: async (text, key) => (await outbound.postMessage(conversation, { text, idempotencyKey: key })).id,
          get: (route, query) => rest('message lookup', () => api.get(route, { query }), z.unknown()),
          botId,
          now: () => (options.clock ?? systemClock).now(),
        },
        postTargetOf(locate(conversation)),
        probe,
      ),
  };
  const stream = {
    open(conversation: ConversationRef, _recipientUserId: string | null, hooks?: AnswerStreamHooks) {
      const target = postTargetOf(locate(conversation));
      // One message edited as the text grows, a new one past the split point; every call through the channel's queue.
      return createEditedStream({
        post: async (text, key) =>
          (await outbound.postMessage(conversation, { text, ...(key ? { idempotencyKey: key } : {}) })).id,
        edit: (id, text) => outbound.editMessage(conversation, id, { text }),
        remove: (id) => outbound.remove(target, id),
        ...(hooks ? { beforeMessage: hooks.beforeMessage } : {}),
        render: (text) => renderPieces(text),
        intervalMs: tuning.streamIntervalMs ?? STREAM_INTERVAL_MS,
        clock: options.clock ?? systemClock,
        logger,
      });
    },
  };

  const files = createDiscordFilePosts({
    rest: discord,
    botThreads,
    maxFileBytes: tuning.maxFileBytes,
    traffic: options.traffic,
  });
  return {
    platform: DISCORD_PLATFORM,
    maxMessageLength: MAX_MESSAGE_LENGTH,
    render: (text, mentionUserId) => renderPieces(text, mentionUserId),
    // Outside an interaction Discord has no ephemeral message: the notice is a post that mentions the person.
    privateNotices: false,
    capabilities: {
      stream,
      delete: { deleteMessage: outbound.deleteMessage },
      previewLookup,
      history,
      directMessage,
      privateAnswers: createDiscordPrivateAnswers(directMessage),
      files,
      privateFiles: createDiscordPrivateFiles(directMessage, files),
      memberRoles,
    },
    start: (sink, surfaces) => gateway.start(sink, surfaces),
    async stop() {
      await working.stopAll();
      await Promise.race([queue.drain(), new Promise((r) => setTimeout(r, 5000).unref())]);
      await gateway.stop();
      api.clearHashSweeper();
      api.clearHandlerSweeper();
    },
    connectionState: () => gateway.connectionState(),
    postMessage: outbound.postMessage,
    editMessage: outbound.editMessage,
    async setWorking(conversation, status) {
      working.set(postTargetOf(locate(conversation)), status);
    },
    openThread: outbound.openThread,
    postEphemeral: outbound.postEphemeral,
  };
}
