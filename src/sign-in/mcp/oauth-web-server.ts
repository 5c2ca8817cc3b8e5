import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../../logger.js';
import type { CallbackOutcome } from './authorization-callback.js';
import { CALLBACK_PATH, CLIENT_METADATA_PATH, errandClientMetadata } from './oauth-client-metadata.js';
import { callbackPage, notFoundPage } from './oauth-pages.js';

/** What the sign-in pages need: where they are published, and what to do with a callback. */
export interface OAuthRoutesOptions {
  /** PUBLIC_URL: the client metadata document names the redirect under it. */
  readonly publicUrl: string;
  readonly logger: Logger;
  /** Completes a sign-in from the callback's query (OAuthConnections.completeAuthorization). */
  completeAuthorization(query: URLSearchParams): Promise<CallbackOutcome>;
  /** Called once a sign-in stored its tokens: the run waiting on it may go on. */
  onConnected(principal: string, server: string, runId: string | null): void | Promise<void>;
  /** Called when a known sign-in ended without a connection (declined, expired, reused, failed), to tell the run. */
  onNotConnected?(outcome: Exclude<CallbackOutcome, { kind: 'connected' | 'unknown' }>): void | Promise<void>;
}

export interface OAuthWebServerOptions extends OAuthRoutesOptions {
  /** WEB_PORT (0 picks a free one). */
  readonly port: number;
  readonly host?: string;
}

/** The listening web endpoint; `port` is the bound one. */
export interface OAuthWebServer {
  readonly port: number;
  close(): Promise<void>;
}

/** The paths the sign-in routes answer (for mounting them on another HTTP server, e.g. Slack's receiver on the same port). */
export const OAUTH_PATHS: readonly string[] = [CALLBACK_PATH, CLIENT_METADATA_PATH];

/**
 * The route a request path names, with PUBLIC_URL's own path taken off when it starts with it: browsers are sent to
 * `${PUBLIC_URL}/oauth/callback`, and a proxy in front of WEB_PORT may forward that path as it is or without the
 * prefix; both reach the same route.
 */
export function oauthRouteOf(pathname: string, publicUrl: string): string {
  const prefix = new URL(publicUrl).pathname.replace(/\/+$/, '');
  return prefix !== '' && pathname.startsWith(`${prefix}/`) ? pathname.slice(prefix.length) : pathname;
}

const HTML = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  // The callback URL holds the code and state: never passed on, and the page is never framed by another site.
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
};

/**
 * The handler of `GET /oauth/callback` (the end of a sign-in, answered with a page in plain words) and
 * `GET /oauth/client-metadata.json` (Errand's Client ID Metadata Document); anything else is 404. Only GET
 * spends a callback's state (a HEAD from a link checker must not use up the sign-in). The query (code, state)
 * is never logged.
 */
export function createOAuthRoutes(options: OAuthRoutesOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const { logger } = options;
  const metadata = JSON.stringify(errandClientMetadata(options.publicUrl));
  return (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const route = oauthRouteOf(url.pathname, options.publicUrl);
    if (!OAUTH_PATHS.includes(route)) {
      res.writeHead(404, HTML).end(notFoundPage);
      return;
    }
    if (req.method !== 'GET' && !(req.method === 'HEAD' && route === CLIENT_METADATA_PATH)) {
      res.writeHead(405, { allow: route === CALLBACK_PATH ? 'GET' : 'GET, HEAD' }).end();
      return;
    }
    if (route === CLIENT_METADATA_PATH) {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'public, max-age=300' }).end(metadata);
      return;
    }
    options
      .completeAuthorization(url.searchParams)
      .then(async (outcome) => {
        const { status, html } = callbackPage(outcome);
        res.writeHead(status, HTML).end(html);
        logger.info(
          { outcome: outcome.kind, server: 'server' in outcome ? outcome.server : null },
          'OAuth sign-in callback',
        );
        if (outcome.kind === 'connected') await options.onConnected(outcome.principal, outcome.server, outcome.runId);
        else if (outcome.kind !== 'unknown') await options.onNotConnected?.(outcome);
      })
      .catch((err: unknown) => {
        logger.error(
          { err: err instanceof Error ? { name: err.name, message: err.message } : String(err) },
          'the OAuth callback failed',
        );
        if (!res.headersSent) res.writeHead(500, HTML).end(callbackPage({ kind: 'unknown' }).html);
      });
  };
}

/** Serves the sign-in routes on a port of their own (WEB_PORT). Started only when some server uses OAuth. */
export async function startOAuthWebServer(options: OAuthWebServerOptions): Promise<OAuthWebServer> {
  const { logger } = options;
  const server: Server = createServer(createOAuthRoutes(options));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '0.0.0.0', () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (err) => logger.error({ err }, 'OAuth web server error'));
  return {
    port: (server.address() as AddressInfo).port,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
