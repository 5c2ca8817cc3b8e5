import * as webApi from '@slack/web-api';
import type { z } from 'zod';
import { sharedPacing } from '../../src/chat/post-pacer.js';
import type { Logger } from '../../src/logger.js';
import { createKeepAliveFetch } from '../../src/net/keep-alive-fetch.js';
import { createOutboundQueue, SLACK_MESSAGE_RATE, type OutboundQueue } from './outbound-queue.js';
import type { SlackCall } from './slack-call.js';
import { boltLogger, callSlack, retryAfterMs } from './slack-api.js';
import type { SlackAdapterOptions } from './slack-adapter-options.js';
import { SLACK_PLATFORM } from './slack-thread-id.js';
import { createWebApiCaller, RETRY_PACE, type WebApiCaller } from './web-api-caller.js';

/** The Web API as every part of the adapter uses it: one client, one typed caller, one paced queue. */
export interface SlackClient {
  readonly client: webApi.WebClient;
  /** The same options for Bolt's own client, so both reach the same API base with the same retries. */
  readonly clientOptions: webApi.WebClientOptions;
  /** Bolt's logger, writing to Errand's. */
  readonly boltLog: ReturnType<typeof boltLogger>;
  /** SLACK_API_URL with exactly one trailing slash, when set. */
  readonly slackApiUrl: string | undefined;
  /** Calls a method and checks its answer against a schema. */
  readonly api: SlackCall;
  /** The same calls unchecked, without WebClient's per-call cost (web-api-caller.ts). */
  readonly call: WebApiCaller;
  /** Per-channel ordering and pacing for everything posted, so 429s are avoided rather than retried. */
  readonly queue: OutboundQueue;
}

/** Longest wait for one Web API answer. */
const CALL_TIMEOUT_MS = 30_000;

/**
 * Builds the Web API client and the outbound queue. Kept apart from the adapter because every
 * other part (posting, streams, working status, history, Bolt) needs the same client and pace.
 */
export function createSlackClient(options: SlackAdapterOptions, logger: Logger): SlackClient {
  const tuning = options.tuning ?? {};
  /** Further tries after a failed call, for WebClient and the thin caller alike. */
  const retries = tuning.webApiRetries ?? 2;
  const slackApiUrl = options.apiUrl ? options.apiUrl.replace(/\/*$/, '/') : undefined;
  const boltLog = boltLogger(logger);
  const clientOptions: webApi.WebClientOptions = {
    ...(slackApiUrl ? { slackApiUrl } : {}),
    logger: boltLog,
    rejectRateLimitedCalls: true,
    retryConfig: { retries, ...RETRY_PACE },
    timeout: CALL_TIMEOUT_MS,
    // Node's http with kept-alive connections instead of the global fetch: about 0.3 ms less CPU per call.
    fetch: createKeepAliveFetch({ readWholeBody: true }),
  };
  const client = new webApi.WebClient(options.botToken, clientOptions);
  const call = createWebApiCaller({
    token: options.botToken,
    ...(slackApiUrl ? { apiUrl: slackApiUrl } : {}),
    retries,
    timeoutMs: CALL_TIMEOUT_MS,
    fallback: (method, args) => client.apiCall(method, args),
    logger,
  });
  const api = <T>(method: string, args: Record<string, unknown>, schema: z.ZodType<T>) =>
    callSlack(method, () => call(method, args), schema);
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
  return { client, clientOptions, boltLog, slackApiUrl, api, call, queue };
}
