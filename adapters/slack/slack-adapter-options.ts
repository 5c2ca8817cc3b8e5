import type { ChatAdapter } from '../../src/chat/chat-adapter.js';
import type { PlatformTraffic } from '../../src/chat/platform-traffic.js';
import type { PostPacer } from '../../src/chat/post-pacer.js';
import type { Clock } from '../../src/clock.js';
import type { Config } from '../../src/config.js';
import { AdapterError } from '../../src/errors.js';
import type { Logger } from '../../src/logger.js';
import type { SuggestedPrompt } from './assistant-threads.js';
import type { RateLimit } from './outbound-queue.js';

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

/** Everything the Slack adapter is built from: tokens and endpoints from configuration, plus what tests inject. */
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
  /** How a streamed answer shows the run's steps (`slack.taskDisplay`; default `timeline`). */
  taskDisplay?: 'timeline' | 'plan';
  /** Timers for streamed answers (default: the system clock). */
  clock?: Clock;
  /** The largest file Errand posts (SLACK_MAX_FILE_MB, in bytes); default 100 MB. */
  maxFileBytes?: number;
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
    taskDisplay: config.file.settings.slack.taskDisplay,
    maxFileBytes: config.SLACK_MAX_FILE_MB * 1000 * 1000,
    ...(logger ? { logger } : {}),
  };
}
