import type { Logger as BoltLogger } from '@slack/bolt';
import * as webApi from '@slack/web-api';
import { LogLevel } from './bolt.js';
import type { z } from 'zod';
import { callPlatform } from '../../src/chat/platform-call.js';
import { AdapterError } from '../../src/errors.js';
import type { Logger } from '../../src/logger.js';

export type WebClient = webApi.WebClient;

/** Milliseconds Slack asked us to wait, when `err` is a 429; else null. */
export function retryAfterMs(err: unknown): number | null {
  if (err instanceof webApi.WebAPIRateLimitedError) return Math.max(0, err.retryAfter) * 1000;
  if (err instanceof webApi.WebAPIPlatformError && err.data.error === 'ratelimited') return 1000;
  return null;
}

/** Slack's error string (`message_not_found`, `already_reacted`, …) of a failed call, else null. */
export function platformError(err: unknown): string | null {
  if (err instanceof AdapterError) return platformError(err.cause);
  return err instanceof webApi.WebAPIPlatformError ? err.data.error : null;
}

/**
 * Slack errors that say the channel cannot take the bot's posts and will not by itself: deleted
 * or unknown, archived, the bot removed, or a workspace rule that forbids it. Retrying never helps.
 */
export const TARGET_GONE_ERRORS: ReadonlySet<string> = new Set([
  'channel_not_found',
  'not_in_channel',
  'is_archived',
  'channel_is_archived',
  'restricted_action',
  'restricted_action_read_only_channel',
  'restricted_action_thread_only_channel',
  'team_access_not_granted',
]);

/**
 * Runs one Web API call and validates the part of the answer we use. A failure becomes an
 * AdapterError that names the method and Slack's error string and keeps the SDK error as cause
 * (a TargetGoneError when the channel is gone for good: TARGET_GONE_ERRORS); a 429 is rethrown
 * untouched so the outbound queue can wait it out.
 */
export function callSlack<T>(method: string, call: () => Promise<unknown>, schema: z.ZodType<T>): Promise<T> {
  return callPlatform(`Slack ${method}`, call, schema, (err) => {
    const code = platformError(err);
    return {
      passThrough: retryAfterMs(err) !== null,
      code,
      detail: code ?? (err instanceof Error ? err.message : String(err)),
      targetGone: code !== null && TARGET_GONE_ERRORS.has(code),
    };
  });
}

/** Bolt and the Web API log through this bridge into Errand's pino logger. */
export function boltLogger(logger: Logger): BoltLogger {
  let level: LogLevel = LogLevel.INFO;
  const text = (msg: unknown[]) =>
    msg.map((m) => (typeof m === 'string' ? m : m instanceof Error ? m.message : JSON.stringify(m))).join(' ');
  return {
    // Bolt's debug output echoes whole payloads; keep it at trace so debug logs stay readable. Bolt and
    // the Web API call these on every event and request: format only what pino will write.
    debug: (...msg: unknown[]) => (logger.isLevelEnabled('trace') ? logger.trace(text(msg)) : undefined),
    info: (...msg: unknown[]) => (logger.isLevelEnabled('debug') ? logger.debug(text(msg)) : undefined),
    warn: (...msg: unknown[]) => logger.warn(text(msg)),
    error: (...msg: unknown[]) => logger.error(text(msg)),
    setLevel: (l: LogLevel) => {
      level = l;
    },
    getLevel: () => level,
    setName: () => {},
  };
}
