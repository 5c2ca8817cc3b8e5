import type { Monitoring, MonitoringOptions } from './monitoring.js';

/**
 * Loads the prom-client implementation. A dynamic import, so with METRICS_PORT unset prom-client
 * is never loaded and costs no memory.
 */
export async function loadMonitoring(options: MonitoringOptions): Promise<Monitoring> {
  const { createPrometheusMonitoring } = await import('./prometheus-monitoring.js');
  return createPrometheusMonitoring(options);
}
