import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import type { ConnectionStore } from '../connection-store.js';
import { ConfigError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { Metrics } from '../../metrics/metrics.js';
import { createSecretBox } from '../../secrets/secret-box.js';
import { decodeSecretKey } from '../../secrets/secret-key.js';
import type { McpServerSettings } from '../../settings/mcp-server-settings.js';
import { scrubberFor } from '../../mcp/scrubbed-error.js';
import { createOAuthConnections, type OAuthConnections } from './oauth-connections.js';
import type { OAuthServer } from './oauth-server.js';
import {
  createOAuthRoutes,
  startOAuthWebServer,
  type OAuthWebServer,
  type OAuthWebServerOptions,
} from './oauth-web-server.js';

/** The configured servers with `auth: "oauth"` (enabled ones only), as the OAuth side needs them. */
export function oauthServersOf(servers: Readonly<Record<string, McpServerSettings>>): OAuthServer[] {
  return Object.entries(servers).flatMap(([name, s]) =>
    'url' in s && s.oauth !== null && !s.disabled
      ? [{ name, url: s.url, settings: s.oauth, scrub: scrubberFor(s) }]
      : [],
  );
}

/** Per-person OAuth, running: the service the MCP wiring asks for tokens, and the web endpoint on WEB_PORT. */
export interface OAuthRuntime {
  readonly connections: OAuthConnections;
  /** The server listening on WEB_PORT; null when the routes are mounted on another server (`listen: false`). */
  readonly web: OAuthWebServer | null;
  /** The sign-in routes as a request handler, for mounting them on another HTTP server (see OAUTH_PATHS). */
  readonly routes: (req: IncomingMessage, res: ServerResponse) => void;
  close(): Promise<void>;
}

export interface StartOAuthOptions extends Pick<OAuthWebServerOptions, 'onConnected' | 'onNotConnected'> {
  readonly config: Pick<Config, 'PUBLIC_URL' | 'WEB_PORT' | 'ERRAND_SECRET_KEY' | 'file'>;
  readonly store: ConnectionStore;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics?: Metrics;
  /** The interface WEB_PORT binds to (default every interface: browsers reach it through PUBLIC_URL). */
  readonly host?: string;
  /**
   * False: listen nowhere, the caller mounts `routes` on its own server (Slack's HTTP receiver when WEB_PORT is
   * SLACK_PORT, which DESIGN.md allows). Default true.
   */
  readonly listen?: boolean;
}

/**
 * Starts per-person OAuth when some server uses it (null otherwise: nothing listens on WEB_PORT). The
 * configuration was checked at start-up (config.ts names a missing PUBLIC_URL or ERRAND_SECRET_KEY); this
 * checks again so a caller with a hand-built config cannot start without them.
 */
export async function startOAuth(o: StartOAuthOptions): Promise<OAuthRuntime | null> {
  const servers = oauthServersOf(o.config.file.settings.mcpServers);
  if (servers.length === 0) return null;
  const key = o.config.ERRAND_SECRET_KEY === undefined ? null : decodeSecretKey(o.config.ERRAND_SECRET_KEY);
  if (o.config.PUBLIC_URL === undefined)
    throw new ConfigError(['PUBLIC_URL: required because some MCP server uses "auth": "oauth".']);
  if (key === null || !key.ok)
    throw new ConfigError([
      'ERRAND_SECRET_KEY: required because some MCP server uses "auth": "oauth" (openssl rand -base64 32).',
    ]);
  const connections = createOAuthConnections({
    store: o.store,
    box: createSecretBox(key.key),
    clock: o.clock,
    publicUrl: o.config.PUBLIC_URL,
    servers,
    logger: o.logger,
    ...(o.metrics ? { metrics: o.metrics } : {}),
  });
  const routeOptions = {
    publicUrl: o.config.PUBLIC_URL,
    logger: o.logger,
    completeAuthorization: (q: URLSearchParams) => connections.completeAuthorization(q),
    onConnected: o.onConnected,
    ...(o.onNotConnected ? { onNotConnected: o.onNotConnected } : {}),
  } satisfies Omit<OAuthWebServerOptions, 'port'>;
  const routes = createOAuthRoutes(routeOptions);
  if (o.listen === false) return { connections, web: null, routes, close: async () => {} };
  const web = await startOAuthWebServer({
    ...routeOptions,
    port: o.config.WEB_PORT,
    ...(o.host ? { host: o.host } : {}),
  });
  o.logger.info({ port: web.port, servers: servers.map((s) => s.name) }, 'OAuth sign-in endpoint listening');
  return { connections, web, routes, close: () => web.close() };
}
