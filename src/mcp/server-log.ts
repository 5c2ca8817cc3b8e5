import type { LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';

/** MCP's syslog levels onto pino's: notice is info, the three above error are fatal. */
const LEVELS = {
  debug: 'debug',
  info: 'info',
  notice: 'info',
  warning: 'warn',
  error: 'error',
  critical: 'fatal',
  alert: 'fatal',
  emergency: 'fatal',
} as const satisfies Record<
  LoggingMessageNotification['params']['level'],
  'debug' | 'info' | 'warn' | 'error' | 'fatal'
>;

/** Longest text of one server log message kept in Errand's log (a server may send whole documents). */
const MAX_LOG_TEXT = 2000;

/**
 * A server's `notifications/message` in Errand's log, at its level, under the server's logger (which names
 * the server). Its data is logged as text, scrubbed of the server's secrets and cut to a readable length.
 */
export function logServerMessage(
  logger: Logger,
  params: LoggingMessageNotification['params'],
  scrub: (text: string) => string,
): void {
  const raw = typeof params.data === 'string' ? params.data : JSON.stringify(params.data);
  const text = scrub(raw ?? '').slice(0, MAX_LOG_TEXT);
  logger[LEVELS[params.level]]({ mcpLogger: params.logger, mcpLevel: params.level }, `MCP server log: ${text}`);
}
