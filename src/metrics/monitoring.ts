import type { Logger } from '../logger.js';
import type { HealthReport } from './health-check.js';
import type { PoolUse } from '../db/pg-pool-use.js';
import type { GaugeReadings } from './metric-gauges.js';
import type { Metrics } from './metrics.js';

/** What the monitoring server reads at request time; the app provides it once it is built. */
export interface MonitoringSources {
  health(): Promise<HealthReport>;
  gauges(): Promise<GaugeReadings>;
  /** The PostgreSQL pool's use (absent on SQLite): `errand_db_pool_*` appear only with it. */
  pool?(): PoolUse | null;
}

/** `/healthz` and `/metrics`: the metrics the core reports into, and the server that shows them. */
export interface Monitoring {
  readonly metrics: Metrics;
  /** Starts listening on METRICS_HOST:METRICS_PORT. */
  start(sources: MonitoringSources): Promise<void>;
  stop(): Promise<void>;
  /** The bound port once started (METRICS_PORT=0 picks one), else null. */
  port(): number | null;
}

export interface MonitoringOptions {
  port: number;
  host: string;
  logger: Logger;
}
