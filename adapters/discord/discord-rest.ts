import { DiscordAPIError, REST, RESTEvents, RESTJSONErrorCodes, Routes, type RESTOptions } from 'discord.js';
import { z } from 'zod';
import { callPlatform } from '../../src/chat/platform-call.js';
import { sharedPacing } from '../../src/chat/post-pacer.js';
import type { Logger } from '../../src/logger.js';
import { createKeepAliveFetch } from '../../src/net/keep-alive-fetch.js';
import type { DiscordAdapterOptions } from './discord-adapter-options.js';
import { DISCORD_PLATFORM } from './discord-thread-id.js';
import type { MessageBody } from './message-bodies.js';
import { createOutboundQueue, DISCORD_MESSAGE_LIMIT, sharedIntervalMs, type OutboundQueue } from './outbound-queue.js';

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
export function rest<T>(what: string, call: () => Promise<unknown>, schema: z.ZodType<T>): Promise<T> {
  return callPlatform(`Discord ${what}`, call, schema, (err) => ({
    code: err instanceof DiscordAPIError ? String(err.code) : null,
    detail:
      err instanceof DiscordAPIError
        ? `${err.status} code ${String(err.code)}: ${err.message}`
        : err instanceof Error
          ? err.message
          : String(err),
    targetGone: err instanceof DiscordAPIError && TARGET_GONE_CODES.has(err.code),
  }));
}

const postedSchema = z.object({ id: z.string() });

/** Discord's REST side as the adapter uses it: the client, the options gateway clients share, the paced queue. */
export interface DiscordRest {
  /** Every post, edit and read goes through this client, with or without a gateway connection. */
  readonly api: REST;
  /** The same REST options for each gateway client. */
  readonly restOptions: Partial<RESTOptions>;
  /** Per-channel ordering and pacing within Discord's limit. */
  readonly queue: OutboundQueue;
  /** Posts one body to a channel (the caller holds the channel's turn) and counts it. */
  post(channelId: string, body: MessageBody): Promise<{ id: string }>;
}

/**
 * Builds the REST client and the outbound queue, kept apart from the adapter because posting,
 * working status, history and the gateway all share them. A 429 is waited out by discord.js
 * itself and is visible only through its Response event, which feeds the traffic metrics.
 */
export function createDiscordRest(options: DiscordAdapterOptions, logger: Logger): DiscordRest {
  const tuning = options.tuning ?? {};
  const restOptions = {
    ...(options.apiUrl ? { api: options.apiUrl.replace(/\/+$/, '') } : {}),
    retries: tuning.restRetries ?? 3,
    // Node's http with kept-alive connections instead of undici's request: less CPU per call. Multipart
    // bodies (attachments) go to the global fetch. Read whole: a 429 dropped unread would hold its connection.
    makeRequest: createKeepAliveFetch({ readWholeBody: true }) as unknown as RESTOptions['makeRequest'],
  };
  const api = new REST(restOptions).setToken(options.token);
  const limit = tuning.messageLimit ?? DISCORD_MESSAGE_LIMIT;
  const queue = createOutboundQueue(
    limit,
    Date.now,
    options.pacer
      ? sharedPacing({ pacer: options.pacer, platform: DISCORD_PLATFORM, intervalMs: sharedIntervalMs(limit), logger })
      : undefined,
  );
  const traffic = options.traffic;
  const post = async (channelId: string, body: MessageBody) => {
    const posted = await rest('post', () => api.post(Routes.channelMessages(channelId), { body }), postedSchema);
    traffic?.posted();
    return posted;
  };
  if (traffic) {
    api.on(RESTEvents.Response, (_request, response) => {
      if (response.status === 429) traffic.rateLimited();
    });
  }
  return { api, restOptions, queue, post };
}
