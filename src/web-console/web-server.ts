import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../logger.js';
import { sendHtml } from './console-http.js';
import { html } from './html.js';
import { plainPage } from './layout.js';

export interface WebServerOptions {
  readonly port: number;
  readonly host: string;
  /** Everything under /admin. */
  readonly console: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  /** The MCP sign-in routes (/oauth/…), when some server uses per-person OAuth; else those paths are 404. */
  readonly oauth: ((req: IncomingMessage, res: ServerResponse) => void) | null;
  readonly logger: Logger;
}

export interface WebServer {
  readonly port: number;
  close(): Promise<void>;
}

const isConsolePath = (url: string | undefined) => /^\/admin(\/|\?|$)/.test(url ?? '');

/**
 * The one listener on WEB_PORT when the console is served: /admin to the console, the rest to the OAuth routes
 * (which then do not listen themselves). A failing page answers 500 without its error (it is logged).
 */
export async function startWebServer(o: WebServerOptions): Promise<WebServer> {
  const server: Server = createServer((req, res) => {
    if (!isConsolePath(req.url)) {
      if (o.oauth) return o.oauth(req, res);
      sendHtml(
        res,
        404,
        plainPage(
          'Not found',
          html`<p>This address serves Errand's web console under <a href="/admin">/admin</a>.</p>`,
        ),
      );
      return;
    }
    o.console(req, res).catch((err: unknown) => {
      o.logger.error(
        {
          err: err instanceof Error ? { name: err.name, message: err.message, stack: err.stack } : String(err),
          path: req.url?.split('?')[0]?.replace(/\/sign-in\/.*/, '/sign-in/…'),
        },
        'a web console page failed',
      );
      if (!res.headersSent)
        sendHtml(
          res,
          500,
          plainPage('Something went wrong', html`<p>The page failed; the error was logged. Try again in a moment.</p>`),
        );
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (err) => o.logger.error({ err }, 'web server error'));
  return {
    port: (server.address() as AddressInfo).port,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
