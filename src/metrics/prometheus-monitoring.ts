import { startMonitoringServer, type MonitoringServer } from './monitoring-server.js';
import type { Monitoring, MonitoringOptions } from './monitoring.js';
import { createPrometheusMetrics } from './prometheus-metrics.js';

/** Monitoring with prom-client metrics and the node:http server; load it through `loadMonitoring`. */
export function createPrometheusMonitoring(options: MonitoringOptions): Monitoring {
  const prometheus = createPrometheusMetrics(options.logger);
  let server: MonitoringServer | null = null;
  return {
    metrics: prometheus.metrics,
    async start(sources) {
      if (server) return;
      prometheus.readGaugesFrom(sources.gauges);
      if (sources.pool) prometheus.readPoolFrom(sources.pool);
      server = await startMonitoringServer({
        port: options.port,
        host: options.host,
        logger: options.logger,
        health: sources.health,
        metrics: prometheus.render,
      });
      options.logger.info({ host: options.host, port: server.port }, 'serving /healthz and /metrics');
    },
    async stop() {
      const running = server;
      server = null;
      await running?.close();
    },
    port: () => server?.port ?? null,
  };
}
