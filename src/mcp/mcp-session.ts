import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ElicitationCompleteNotificationSchema,
  ErrorCode,
  LoggingMessageNotificationSchema,
  McpError,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type Progress,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { HttpServerSettings, McpServerSettings } from '../settings/mcp-server-settings.js';
import { loadClientSdk, type ClientSdk } from './client-sdk.js';
import { ELICITATION_CAPABILITY, routeElicitation } from './elicitation-route.js';
import type { ElicitationAsker, ElicitationScope } from './elicitation-scope.js';
import { describeFailure, httpStatusOf, type FailureContext } from './failure-reason.js';
import { logServerMessage } from './server-log.js';
import { scrubbedError, scrubberFor } from './scrubbed-error.js';
import { watchStdioProcess, type StdioProcessWatch } from './stdio-process-watch.js';

const CLIENT_INFO = { name: 'errand', version: '0.1.0' };

/**
 * The SDK's timeout for a call that may ask a person something: the caller's deadline (paused while the person
 * answers) ends it first, so this is only a backstop — the longest timer Node arms.
 */
const QUESTION_BACKSTOP_MS = 2_147_483_647;

/** Statuses a Streamable HTTP endpoint answers when it only speaks the old HTTP+SSE protocol. */
const STREAMABLE_NOT_SUPPORTED = new Set([400, 404, 405]);

export interface McpSessionOptions {
  readonly settings: McpServerSettings;
  readonly logger: Logger;
  /** The session ended without `close()`: the process exited or the HTTP connection was lost. */
  readonly onUnexpectedClose: () => void;
  /** The server sent notifications/tools/list_changed. */
  readonly onToolListChanged: () => void;
  /** For an `auth: "oauth"` server: the person's sign-in, whose token every request of this session carries. */
  readonly authProvider?: OAuthClientProvider;
  /** Who asks people the server's questions (elicitation) during a call; null or absent: questions are cancelled. */
  readonly elicitation?: () => ElicitationAsker | null;
  /** Adds the active span's `traceparent` to a request's headers (traces on): HTTP servers' calls join the run's trace. */
  readonly injectTraceHeaders?: ((headers: Record<string, string>) => void) | undefined;
}

/** `fetch` with the active trace's headers added to every request, when there are any. */
function tracedFetch(
  inject: (headers: Record<string, string>) => void,
): (url: string | URL, init?: RequestInit) => Promise<Response> {
  return (url, init) => {
    const trace: Record<string, string> = {};
    inject(trace);
    if (Object.keys(trace).length === 0) return fetch(url, init);
    const headers = new Headers(init?.headers);
    for (const [k, v] of Object.entries(trace)) headers.set(k, v);
    return fetch(url, { ...init, headers });
  };
}

/** How one call runs: the run's signal, the SDK's timeout, and (for questions the server asks during it) the call's scope. */
export interface CallOptions {
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  readonly scope?: ElicitationScope;
  /** The call asks for progress (a progressToken) and hears each notifications/progress for it. */
  readonly onProgress?: (p: Progress) => void;
}

/** One live connection to one MCP server: a client plus its transport. A restart makes a new session. */
export interface McpSession {
  /** The stdio child's pid (null for HTTP, or before the process started). */
  readonly pid: number | null;
  connect(): Promise<void>;
  listTools(signal?: AbortSignal): Promise<Tool[]>;
  /** `onProgress` in the options: the call asks for progress (a progressToken) and hears each notifications/progress for it. */
  callTool(name: string, args: Record<string, unknown>, options: CallOptions): Promise<CallToolResult>;
  /** A readable reason for an error of this session ("exited with code 1: …", "HTTP 401 from …"), safe to show. */
  describe(err: unknown): string;
  /** Takes the server's real URL and its secret parts out of a text (an error message) before it is shown. */
  scrub(text: string): string;
  close(): Promise<void>;
}

function isHttp(settings: McpServerSettings): settings is HttpServerSettings {
  return 'url' in settings;
}

/** Creates a session for a configured server; nothing is spawned or fetched until `connect()`. */
export function createMcpSession(options: McpSessionOptions): McpSession {
  const { settings, logger } = options;
  const scrub = scrubberFor(settings);
  let client: Client | null = null;
  let stdio: StdioClientTransport | null = null;
  let watch: StdioProcessWatch | null = null;
  let connected = false;
  let closing = false;
  const inFlight = new Set<ElicitationScope>();

  const newClient = ({ Client }: ClientSdk): Client => {
    const c = new Client(CLIENT_INFO, { capabilities: { ...ELICITATION_CAPABILITY } });
    c.setNotificationHandler(ToolListChangedNotificationSchema, () => options.onToolListChanged());
    c.setNotificationHandler(ElicitationCompleteNotificationSchema, (n) =>
      options.elicitation?.()?.completed?.(n.params.elicitationId, inFlight),
    );
    // The SDK's own handler would reject a form it cannot type (a nested object) before the thread hears of it.
    c.fallbackRequestHandler = async (request) => {
      if (request.method !== 'elicitation/create')
        throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
      return routeElicitation(request.params, inFlight, options.elicitation?.() ?? null, logger);
    };
    c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => logServerMessage(logger, n.params, scrub));
    c.onclose = () => {
      if (connected && !closing && c === client) options.onUnexpectedClose();
    };
    c.onerror = (err) => logger.debug({ err: scrubbedError(err, scrub) }, 'MCP transport error');
    return c;
  };

  const where = (): FailureContext =>
    isHttp(settings)
      ? { url: settings.shownUrl.text }
      : { command: settings.command, exitReason: watch?.exitReason() ?? null };

  async function connectWith(sdk: ClientSdk, transport: Transport): Promise<void> {
    client = newClient(sdk);
    await client.connect(transport);
  }

  async function connectHttp(sdk: ClientSdk, s: HttpServerSettings): Promise<void> {
    const { SSEClientTransport, StreamableHTTPClientTransport } = sdk;
    const url = new URL(s.url);
    const requestInit = { headers: s.headers };
    const auth = {
      ...(options.authProvider ? { authProvider: options.authProvider } : {}),
      ...(options.injectTraceHeaders ? { fetch: tracedFetch(options.injectTraceHeaders) } : {}),
    };
    if (s.type === 'sse') return connectWith(sdk, new SSEClientTransport(url, { requestInit, ...auth }));
    try {
      await connectWith(sdk, new StreamableHTTPClientTransport(url, { requestInit, ...auth }));
    } catch (err) {
      const status = httpStatusOf(err);
      if (closing || status === null || !STREAMABLE_NOT_SUPPORTED.has(status)) throw err;
      logger.info({ status }, 'MCP server does not speak Streamable HTTP; trying the older HTTP+SSE transport');
      await client?.close().catch(() => {});
      await connectWith(sdk, new SSEClientTransport(url, { requestInit, ...auth }));
    }
  }

  return {
    get pid() {
      return stdio?.pid ?? null;
    },
    async connect() {
      const sdk = await loadClientSdk();
      if (isHttp(settings)) {
        await connectHttp(sdk, settings);
      } else {
        stdio = new sdk.StdioClientTransport({
          command: settings.command,
          args: settings.args,
          env: settings.env,
          cwd: settings.cwd,
          stderr: 'pipe',
        });
        watch = watchStdioProcess(stdio, logger);
        try {
          await connectWith(sdk, stdio);
        } catch (err) {
          // The exit code and the last stderr lines arrive just after the connection reports the close.
          await new Promise((resolve) => setImmediate(resolve));
          throw err;
        }
      }
      connected = true;
    },
    async listTools(signal) {
      if (!client) throw new Error('not connected');
      const tools: Tool[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor ? { cursor } : undefined, signal ? { signal } : undefined);
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor);
      return tools;
    },
    async callTool(name, args, { signal, timeoutMs, scope, onProgress }) {
      if (!client) throw new Error('not connected');
      if (scope) inFlight.add(scope);
      try {
        // The call's deadline is the caller's (it pauses while a person answers a question); the SDK's is only a backstop.
        const timeout = scope ? QUESTION_BACKSTOP_MS : timeoutMs;
        const result = await client.callTool({ name, arguments: args }, undefined, {
          signal,
          timeout,
          ...(onProgress ? { onprogress: onProgress } : {}),
        });
        return result as CallToolResult;
      } finally {
        if (scope) inFlight.delete(scope);
      }
    },
    describe: (err) => scrub(describeFailure(err, where())),
    scrub,
    async close() {
      closing = true;
      await client
        ?.close()
        .catch((err: unknown) => logger.debug({ err: scrubbedError(err, scrub) }, 'closing the MCP client failed'));
      // A transport whose connect never finished is not yet owned by the client.
      await stdio?.close().catch(() => {});
    },
  };
}
