import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { loadedClientSdk } from './client-sdk.js';

/** Where the server lives, so a reason can name it. */
export interface FailureContext {
  readonly command?: string;
  /** The server URL as it may be shown (`ShownUrl.text`): never the real one, which may carry a key. */
  readonly url?: string;
  /** How the stdio process ended, when it did ("exited with code 1: …"). */
  readonly exitReason?: string | null;
}

function errnoCode(err: unknown): string | null {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return null;
}

/** The HTTP status behind an SDK transport error, when there is one. */
export function httpStatusOf(err: unknown): number | null {
  if (err instanceof UnauthorizedError) return 401;
  const sdk = loadedClientSdk();
  if (
    sdk &&
    (err instanceof sdk.StreamableHTTPError || err instanceof sdk.SseError) &&
    typeof err.code === 'number' &&
    err.code > 0
  )
    return err.code;
  return null;
}

/**
 * One short line saying why a server could not start or stopped — "command not found", "exited with code 1:
 * <stderr>", "HTTP 401 from <url>" — for the log and for the model's error result. Never branches on messages.
 */
export function describeFailure(err: unknown, where: FailureContext): string {
  if (err === null || err === undefined) return where.exitReason ?? 'the connection closed';
  const code = errnoCode(err);
  if (code === 'ENOENT' && where.command) return `command not found: "${where.command}" (check the command and PATH)`;
  if (code === 'EACCES' && where.command) return `permission denied running "${where.command}"`;
  if (where.exitReason) return where.exitReason;
  const status = httpStatusOf(err);
  if (status !== null && where.url)
    return `HTTP ${status} from ${where.url}${status === 401 || status === 403 ? ' (check the headers, e.g. Authorization)' : ''}`;
  if (code && where.url && /^E[A-Z]+$/.test(code)) return `cannot reach ${where.url} (${code})`;
  if (err instanceof McpError && err.code === ErrorCode.ConnectionClosed) return 'the connection closed';
  return err instanceof Error ? err.message : String(err);
}
