import type { Logger } from 'pino';
import type { ExternalToolSource } from '../agent/tools/external-tool.js';
import { systemClock, type Clock } from '../clock.js';
import type { McpServerSettings } from '../settings/mcp-server-settings.js';
import { McpServerConnection, type McpServerState } from '../mcp/mcp-server-connection.js';
import { McpToolCatalog } from '../mcp/mcp-tool-catalog.js';
import { OAuthToolServer, type OAuthBinding } from '../sign-in/mcp/oauth-tool-server.js';
import { DEFAULT_MAX_RESULT_CHARS } from '../mcp/mcp-tool-result.js';
import { exponentialBackoff, type RestartBackoff } from '../mcp/restart-backoff.js';
import type { ElicitationAsker } from '../mcp/elicitation-scope.js';

export interface McpHubOptions {
  /** `config.file.settings.mcpServers`, in file order (the first of two clashing tool names wins). */
  readonly servers: Readonly<Record<string, McpServerSettings>>;
  readonly logger: Logger;
  /** Start timeouts, call timeouts and restart delays run on this clock. */
  readonly clock?: Clock;
  /** Delay before restart attempt n (default 1 s, 2 s, 4 s … 60 s). */
  readonly backoff?: RestartBackoff;
  /** How long a server may take to start and list its tools (default 30 s). */
  readonly startTimeoutMs?: number;
  /** Cap on one result handed to the model, in characters (default 16 000). */
  readonly maxResultChars?: number;
  /** Adds the active span's `traceparent` to a request's headers (traces on): HTTP servers' calls join the run's trace. */
  readonly injectTraceHeaders?: ((headers: Record<string, string>) => void) | undefined;
}

/**
 * Whether a server's results are private to the person a call is made for (DESIGN.md "Private stays private in a
 * shared thread"): as its `visibility` says, else private for a server people sign in to (`auth: oauth`, each call
 * made with their own token) and public for one every call reaches with the same credentials.
 */
export function resultsArePrivate(settings: McpServerSettings): boolean {
  if (settings.visibility !== undefined) return settings.visibility === 'private';
  return 'oauth' in settings && settings.oauth !== null;
}

/** One server's health, for logs and /healthz. */
export interface McpServerStatus {
  readonly name: string;
  readonly state: McpServerState['kind'];
  /** Why it is failed or restarting. */
  readonly reason: string | null;
  /** Tools offered (after `tools` / `disabledTools`). */
  readonly tools: number;
  /** The stdio child's pid while it runs. */
  readonly pid: number | null;
}

/** Every configured MCP server behind one ExternalToolSource, with a lifecycle the app drives. */
export interface McpHub extends ExternalToolSource {
  /** Starts every enabled server in parallel; a failure is logged and that server skipped. Never throws. */
  start(): Promise<void>;
  /** Closes every server; stdio child processes have exited when it resolves. */
  close(): Promise<void>;
  status(): McpServerStatus[];
  /** Hands the `auth: "oauth"` servers the running OAuth service (app start, before `start`). */
  bindOAuth(binding: OAuthBinding): void;
  /** Hands every server the asker of their questions (elicitation) during calls (app start, before `start`). */
  bindElicitation(asker: ElicitationAsker): void;
  /** The person disconnected `server` (`/connections disconnect`): their open session to it is closed. */
  disconnected(principal: string, server: string): Promise<void>;
  /** The person connected `server`: their session opens (learning the server's tools if none are known yet). */
  connected(principal: string, server: string): Promise<void>;
}

/**
 * Creates the hub for the configured servers. Usage: `const mcp = createMcpHub({ servers:
 * config.file.settings.mcpServers, logger }); await mcp.start();` — pass `mcp` as the runner's
 * ExternalToolSource and `await mcp.close()` on shutdown.
 */
export function createMcpHub(options: McpHubOptions): McpHub {
  const clock = options.clock ?? systemClock;
  const backoff = options.backoff ?? exponentialBackoff();
  let catalog: McpToolCatalog | null = null;
  let asker: ElicitationAsker | null = null;
  const elicitation = () => asker;
  const oauthServers = new Map<string, OAuthToolServer>();
  const servers = Object.entries(options.servers).map(([name, settings]) => {
    const channels = settings.channels ? new Set(settings.channels) : null;
    const privateResults = resultsArePrivate(settings);
    if ('url' in settings && settings.oauth !== null && !settings.disabled) {
      const connection = new OAuthToolServer({
        name,
        settings,
        logger: options.logger.child({ mcpServer: name }),
        clock,
        maxResultChars: options.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS,
        onToolsChanged: () => catalog?.rebuild(),
        elicitation,
        injectTraceHeaders: options.injectTraceHeaders,
      });
      oauthServers.set(name, connection);
      return { name, connection, channels, privateResults };
    }
    const connection = new McpServerConnection({
      name,
      settings,
      logger: options.logger.child({ mcpServer: name }),
      clock,
      backoff,
      startTimeoutMs: options.startTimeoutMs ?? 30_000,
      maxResultChars: options.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS,
      onToolsChanged: () => catalog?.rebuild(),
      elicitation,
      injectTraceHeaders: options.injectTraceHeaders,
    });
    return { name, connection, channels, privateResults };
  });
  catalog = new McpToolCatalog(servers, options.logger);
  // The OAuth servers offer their stand-in tool from the start.
  if (oauthServers.size > 0) catalog.rebuild();

  return {
    async start() {
      const enabled = servers.filter((s) => s.connection.currentState.kind !== 'disabled');
      await Promise.all(enabled.map((s) => s.connection.start()));
      const connected = enabled.filter((s) => s.connection.currentState.kind === 'connected').length;
      if (servers.length > 0) options.logger.info({ connected, configured: servers.length }, 'MCP servers started');
    },
    async close() {
      await Promise.all(servers.map((s) => s.connection.close()));
    },
    status: () =>
      servers.map(({ name, connection }) => {
        const state = connection.currentState;
        return {
          name,
          state: state.kind,
          reason: 'reason' in state ? state.reason : null,
          tools: connection.tools.length,
          pid: connection.pid,
        };
      }),
    toolsFor: (conversation) => catalog.toolsFor(conversation),
    bindOAuth(binding) {
      for (const server of oauthServers.values()) server.bind(binding);
    },
    bindElicitation(bound) {
      asker = bound;
    },
    disconnected: async (principal, server) => oauthServers.get(server)?.forget(principal),
    connected: async (principal, server) => oauthServers.get(server)?.open(principal),
  };
}
