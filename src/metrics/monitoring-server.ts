import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../logger.js';
import type { HealthReport } from './health-check.js';

export interface MonitoringServerOptions {
  port: number;
  host: string;
  logger: Logger;
  health(): Promise<HealthReport>;
  metrics(): Promise<{ contentType: string; body: string }>;
}

/** The listening server; `port` is the bound one (useful with port 0). */
export interface MonitoringServer {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Serves `GET /healthz` (200 or 503 with a JSON report) and `GET /metrics` (Prometheus text) on
 * its own port, apart from the Slack HTTP receiver, so probes and scrapes never share a port
 * with platform traffic. Anything else is 404; other methods on these paths are 405.
 */
export async function startMonitoringServer(options: MonitoringServerOptions): Promise<MonitoringServer> {
  const { logger } = options;
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path !== '/healthz' && path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found: try /healthz or /metrics\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res
        .writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' })
        .end('Method not allowed\n');
      return;
    }
    if (path === '/healthz') {
      Promise.resolve()
        .then(() => options.health())
        .then(
          (report: HealthReport) => {
            if (report.status !== 'ok') logger.warn({ problems: report.problems }, 'health check: unhealthy');
            res
              .writeHead(report.status === 'ok' ? 200 : 503, {
                'content-type': 'application/json',
                'cache-control': 'no-store',
              })
              .end(JSON.stringify(report));
          },
          (err: unknown) => {
            logger.error({ err }, 'the health check failed');
            res
              .writeHead(503, { 'content-type': 'application/json' })
              .end(JSON.stringify({ status: 'unhealthy', problems: ['the health check itself failed; see the log'] }));
          },
        );
      return;
    }
    options.metrics().then(
      ({ contentType, body }) => res.writeHead(200, { 'content-type': contentType }).end(body),
      (err: unknown) => {
        logger.error({ err }, 'rendering /metrics failed');
        res
          .writeHead(500, { 'content-type': 'text/plain; charset=utf-8' })
          .end('Rendering the metrics failed; see the log.\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (err) => logger.error({ err }, 'monitoring server error'));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
