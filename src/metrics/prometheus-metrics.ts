import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Logger } from '../logger.js';
import type { PoolUse } from '../db/pg-pool-use.js';
import type { GaugeReadings } from './metric-gauges.js';
import type { Metrics } from './metrics.js';

/** Errand's metrics on a prom-client registry of their own (never the global one). */
export interface PrometheusMetrics {
  readonly metrics: Metrics;
  /** Where `errand_runs_active` and `errand_tasks_pending` are read at scrape time. */
  readGaugesFrom(read: () => Promise<GaugeReadings>): void;
  /** Where the PostgreSQL pool's use is read at scrape time: the `errand_db_pool_*` metrics exist from this call on. */
  readPoolFrom(read: () => PoolUse | null): void;
  /** The exposition text and its content type. */
  render(): Promise<{ contentType: string; body: string }>;
}

const RUN_SECONDS = [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600];
const MODEL_SECONDS = [0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120];

/**
 * Builds every Errand metric plus the default process metrics. Counters are bumped by the
 * `Metrics` calls; the two gauges query the database only when Prometheus scrapes.
 */
export function createPrometheusMetrics(logger: Logger): PrometheusMetrics {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry });

  const runs = new Counter({
    name: 'errand_runs_total',
    help: 'Agent runs that ended, by final status.',
    labelNames: ['outcome'] as const,
    registers,
  });
  const runSeconds = new Histogram({
    name: 'errand_run_duration_seconds',
    help: 'Run duration from start to end, waiting for answers included.',
    buckets: RUN_SECONDS,
    registers,
  });
  const modelSeconds = new Histogram({
    name: 'errand_model_request_duration_seconds',
    help: 'Model requests (one agent step, retries included).',
    buckets: MODEL_SECONDS,
    registers,
  });
  const tokens = new Counter({
    name: 'errand_model_tokens_total',
    help: 'Tokens the model endpoint reported, by kind.',
    labelNames: ['kind'] as const,
    registers,
  });
  const cost = new Counter({
    name: 'errand_cost_usd_total',
    help: 'Dollars the model requests cost at the configured prices, by model asked.',
    labelNames: ['model'] as const,
    registers,
  });
  const inbound = new Counter({
    name: 'errand_inbound_events_total',
    help: 'Events adapters delivered (messages, commands, clicks; redeliveries included).',
    labelNames: ['platform'] as const,
    registers,
  });
  const outbound = new Counter({
    name: 'errand_outbound_messages_total',
    help: 'Messages posted on the platform.',
    labelNames: ['platform'] as const,
    registers,
  });
  const rateLimited = new Counter({
    name: 'errand_platform_rate_limited_total',
    help: 'HTTP 429 answers from the platform.',
    labelNames: ['platform'] as const,
    registers,
  });
  const oauth = new Counter({
    name: 'errand_mcp_oauth_total',
    help: 'OAuth steps for MCP servers with per-person sign-in, by outcome.',
    labelNames: ['server', 'outcome'] as const,
    registers,
  });
  const scheduleFires = new Counter({
    name: 'errand_schedule_fires_total',
    help: 'Schedule fires, by what became of them.',
    labelNames: ['outcome'] as const,
    registers,
  });

  let readGauges: (() => Promise<GaugeReadings>) | null = null;
  // Read once per scrape, before the registry collects: both gauges come from the same reading.
  let current: GaugeReadings | null = null;
  const readNow = async (): Promise<GaugeReadings | null> => {
    if (!readGauges) return null;
    try {
      return await readGauges();
    } catch (err) {
      logger.warn({ err }, 'reading the metric gauges from the database failed');
      return null;
    }
  };
  new Gauge({
    name: 'errand_runs_active',
    help: 'Runs running or waiting for an answer.',
    registers,
    collect() {
      setOrUnknown(this, current?.runsActive);
    },
  });
  new Gauge({
    name: 'errand_tasks_pending',
    help: 'To-do items waiting to start.',
    registers,
    collect() {
      setOrUnknown(this, current?.tasksPending);
    },
  });

  return {
    metrics: {
      runFinished(outcome, seconds) {
        runs.inc({ outcome });
        if (seconds !== null) runSeconds.observe(Math.max(0, seconds));
      },
      modelRequest(seconds, usage) {
        modelSeconds.observe(Math.max(0, seconds));
        if (!usage) return;
        tokens.inc({ kind: 'prompt' }, usage.promptTokens);
        tokens.inc({ kind: 'completion' }, usage.completionTokens);
      },
      modelCost: (model, usd) => cost.inc({ model }, Math.max(0, usd)),
      inbound: (platform) => inbound.inc({ platform }),
      outbound: (platform) => outbound.inc({ platform }),
      rateLimited: (platform) => rateLimited.inc({ platform }),
      scheduleFired: (outcome) => scheduleFires.inc({ outcome }),
      mcpOAuth: (server, outcome) => oauth.inc({ server, outcome }),
    },
    readGaugesFrom(read) {
      readGauges = read;
    },
    readPoolFrom(read) {
      registerPoolMetrics(registers, read);
    },
    async render() {
      current = await readNow();
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}

/** An unreadable gauge shows NaN (unknown), never a made-up 0. */
function setOrUnknown(gauge: Gauge, value: number | undefined): void {
  gauge.set(value ?? NaN);
}

/**
 * The PostgreSQL pool's metrics, read in-process at each scrape. The two totals say whether `DATABASE_POOL_SIZE` is
 * too small (statements queueing for a connection); a pool waited on rarely shows in the gauges of one instant.
 */
function registerPoolMetrics(registers: Registry[], read: () => PoolUse | null): void {
  const gauge = (name: string, help: string, of: (use: PoolUse) => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        const use = read();
        setOrUnknown(this, use ? of(use) : undefined);
      },
    });
  // A total kept by the pool itself: each scrape shows it as it stands.
  const total = (name: string, help: string, of: (use: PoolUse) => number) =>
    new Counter({
      name,
      help,
      registers,
      collect() {
        const use = read();
        this.reset();
        if (use) this.inc(of(use));
      },
    });
  gauge('errand_db_pool_size', 'PostgreSQL connections this process may hold (DATABASE_POOL_SIZE).', (u) => u.size);
  new Gauge({
    name: 'errand_db_pool_connections',
    help: 'PostgreSQL connections open in the pool, busy or idle.',
    labelNames: ['state'] as const,
    registers,
    collect() {
      const use = read();
      this.set({ state: 'busy' }, use?.busy ?? NaN);
      this.set({ state: 'idle' }, use?.idle ?? NaN);
    },
  });
  gauge(
    'errand_db_pool_waiting',
    'Statements or transactions waiting for a PostgreSQL connection now.',
    (u) => u.waiting,
  );
  total(
    'errand_db_pool_waits_total',
    'Checkouts that found every PostgreSQL connection of the pool taken and waited for one.',
    (u) => u.waits,
  );
  total(
    'errand_db_pool_wait_seconds_total',
    'Seconds checkouts waited for a busy PostgreSQL connection, together.',
    (u) => u.waitedSeconds,
  );
}
