import { dirname, join } from 'node:path';
import { pino } from 'pino';
import { checkModelEndpoint } from './agent/model-endpoint-check.js';
import { createApp, type ManagedToolSource } from './app.js';
import type { ChatAdapter } from './chat/chat-adapter.js';
import type { ConversationRef } from './chat/conversation-ref.js';
import type { ClusterChat } from './cluster/cluster-chat.js';
import type { ClusterProcess } from './composition/cluster-process.js';
import { ENV_VARIABLES, loadConfig, loadDotEnv, type Config } from './config.js';
import { prepareDatabaseLocation, PRIVATE_FILE_MODE } from './db/database-location.js';
import { acquireProcessLock, LOCK_REFRESH_MS, type ProcessLock } from './db/process-lock.js';
import { ConfigError, DatabaseError } from './errors.js';
import { createLogger, type Logger } from './logger.js';
import { noopMetrics, type Metrics } from './metrics/metrics.js';
import { loadMonitoring } from './metrics/load-monitoring.js';
import type { Monitoring } from './metrics/monitoring.js';
import { trafficCounter } from './metrics/traffic-counter.js';
import { loadTracing } from './telemetry/load-tracing.js';
import type { Tracing } from './telemetry/tracing.js';
import type { FinishedWork } from './runtime/restarts/finish-open-work.js';
import { nodeHeapSignals, startIdleHeapRelease, unrefInterval } from './runtime/process/idle-heap-release.js';

const SHUTDOWN_GRACE_MS = 10_000;

/**
 * Builds the adapters the configuration enables. The composition root is the one place in src/
 * that reaches into adapters/, and only through dynamic imports, so a console-only start never
 * loads a platform SDK.
 */
async function createAdapters(
  config: Config,
  logger: Logger,
  shutdown: (reason: string) => void,
  metrics: Metrics,
  shared: ClusterChat | null,
  finishOpenWork: (silenced: ConversationRef) => Promise<FinishedWork>,
): Promise<ChatAdapter[]> {
  const traffic = (platform: string) => trafficCounter(metrics, platform);
  const adapters: ChatAdapter[] = [];
  if (config.platforms.includes('console')) {
    const { createConsoleAdapter } = await import('../adapters/console/console-adapter.js');
    const terminal = createConsoleAdapter({
      input: process.stdin,
      output: process.stdout,
      env: process.env,
      filesDir: join(dirname(config.DATABASE_PATH), 'files'),
      // Piped input: what it asked for is done (and printed) before the process stops.
      onInputEnd: () => finishOpenWork(terminal.conversation),
      onClose: () => shutdown('console closed'),
    });
    adapters.push(terminal);
  }
  if (config.platforms.includes('slack')) {
    const { createSlackAdapter, slackOptionsFromConfig } = await import('../adapters/slack/create-slack-adapter.js');
    adapters.push(
      createSlackAdapter({
        ...slackOptionsFromConfig(config, logger),
        traffic: traffic('slack'),
        ...(shared ? { pacer: shared.pacer } : {}),
      }),
    );
  }
  if (config.platforms.includes('discord')) {
    const { createDiscordAdapter, discordOptionsFromConfig } =
      await import('../adapters/discord/create-discord-adapter.js');
    // On PostgreSQL only the process holding the gateway lock connects the gateway; every process posts through REST.
    adapters.push(
      createDiscordAdapter({
        ...discordOptionsFromConfig(config, logger),
        traffic: traffic('discord'),
        ...(shared ? { gateway: shared.gateway, pacer: shared.pacer } : {}),
      }),
    );
  }
  return adapters;
}

/** Opens the PostgreSQL store and what sharing it takes; the pg driver is loaded only then. A database that cannot be used stops start-up with its reason. */
async function openClustered(config: Config & { DATABASE_URL: string }, logger: Logger): Promise<ClusterProcess> {
  const { openClusterProcess } = await import('./composition/cluster-process.js');
  try {
    return await openClusterProcess(config, logger);
  } catch (err) {
    if (err instanceof DatabaseError) {
      process.stderr.write(`Errand cannot start: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}

/** The MCP servers of the configuration file; the SDK is loaded only when some are configured. */
async function createToolServers(config: Config, logger: Logger, tracing: Tracing): Promise<ManagedToolSource | null> {
  const servers = config.file.settings.mcpServers;
  if (Object.keys(servers).length === 0) return null;
  const { createMcpHub } = await import('./composition/mcp-hub.js');
  return createMcpHub({
    servers,
    logger,
    ...(tracing.enabled
      ? { injectTraceHeaders: (headers: Record<string, string>) => tracing.injectHeaders(headers) }
      : {}),
  });
}

/**
 * Why Errand will not start the console adapter with piped input: a service started without its platform
 * token (or with a misspelled one) must fail loudly rather than sit in a console nobody reads.
 */
function consoleRefusal(env: NodeJS.ProcessEnv): string {
  const known = new Set(ENV_VARIABLES);
  const lookalikes = Object.keys(env).filter((k) => /^(SLACK|DISCORD)/i.test(k) && !known.has(k));
  return [
    'Errand cannot start: neither SLACK_BOT_TOKEN nor DISCORD_TOKEN is set, and standard input is not a terminal, so the console adapter would have nobody to talk to.',
    ...(lookalikes.length > 0 ? [`  These variables look like misspelled tokens: ${lookalikes.join(', ')}.`] : []),
    '  Set SLACK_BOT_TOKEN (with SLACK_APP_TOKEN or SLACK_SIGNING_SECRET) or DISCORD_TOKEN in .env or the environment,',
    '  or set ERRAND_CONSOLE=on to use the console adapter with piped input.',
  ].join('\n');
}

async function main(): Promise<void> {
  loadDotEnv();
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(
        `Errand cannot start: fix these settings (in .env, the environment or the configuration file).\n${err.problems.map((p) => `  - ${p}`).join('\n')}\n`,
      );
      process.exit(1);
    }
    throw err;
  }
  if (config.platforms.includes('console') && !process.stdin.isTTY && config.ERRAND_CONSOLE !== 'on') {
    process.stderr.write(`${consoleRefusal(process.env)}\n`);
    process.exit(1);
  }
  let lock: ProcessLock | null = null;
  try {
    // Before the logger: in console mode the log file sits beside the database.
    prepareDatabaseLocation(config.DATABASE_PATH);
    // Only the SQLite file is one process's; on PostgreSQL (DATABASE_URL) any number of processes share the database.
    if (config.DATABASE_URL === undefined) lock = acquireProcessLock(config.DATABASE_PATH);
  } catch (err) {
    if (err instanceof DatabaseError) {
      process.stderr.write(`Errand cannot start: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  if (lock) {
    const held = lock;
    process.once('exit', () => held.release());
    setInterval(() => held.refresh(), LOCK_REFRESH_MS).unref();
  }
  const consoleMode = config.platforms.includes('console');
  const logFile = join(dirname(config.DATABASE_PATH), 'errand.log');
  const logger = createLogger(
    config.LOG_LEVEL,
    consoleMode ? pino.destination({ dest: logFile, mkdir: true, sync: false, mode: PRIVATE_FILE_MODE }) : undefined,
  );
  if (consoleMode)
    process.stderr.write(
      `No SLACK_BOT_TOKEN or DISCORD_TOKEN set: starting the console adapter. Logs go to ${logFile}.\n`,
    );

  // The OpenTelemetry SDK is loaded only when an OTLP endpoint is set.
  const tracing = await loadTracing(process.env, logger);
  let stopping = false;
  let app: Awaited<ReturnType<typeof createApp>> | null = null;
  let clustered: ClusterProcess | null = null;
  const shutdown = (reason: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ reason }, 'shutting down');
    const force = setTimeout(() => {
      logger.warn('shutdown took too long; exiting');
      process.exit(1);
    }, SHUTDOWN_GRACE_MS);
    force.unref();
    void (app?.stop() ?? Promise.resolve())
      .then(() => clustered?.close())
      .then(() => tracing.shutdown())
      .catch((err: unknown) => logger.error({ err }, 'error during shutdown'))
      .finally(() => {
        logger.flush?.();
        process.exit(0);
      });
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));

  // prom-client is loaded only when METRICS_PORT is set.
  const monitoring: Monitoring | null =
    config.METRICS_PORT === undefined
      ? null
      : await loadMonitoring({ port: config.METRICS_PORT, host: config.METRICS_HOST, logger });
  // DATABASE_URL: several processes share one PostgreSQL database (leases, wake-ups, one gateway holder, shared pacing).
  const url = config.DATABASE_URL;
  clustered = url === undefined ? null : await openClustered({ ...config, DATABASE_URL: url }, logger);
  // The console's input may end while the app is still starting: its open work is finished once the app has started.
  let started: Promise<void> = new Promise(() => undefined);
  const finishOpenWork = async (silenced: ConversationRef): Promise<FinishedWork> => {
    await started;
    return app ? app.finishOpenWork([silenced]) : { questionsStopped: 0 };
  };
  const adapters = await createAdapters(
    config,
    logger,
    shutdown,
    monitoring?.metrics ?? noopMetrics,
    clustered?.chat ?? null,
    finishOpenWork,
  );
  const externalTools = await createToolServers(config, logger, tracing);
  app = await createApp({
    config,
    adapters,
    logger,
    tracing,
    webConsole: {},
    ...(externalTools ? { externalTools } : {}),
    ...(monitoring ? { monitoring } : {}),
    ...(clustered ? { store: clustered.store, cluster: clustered.cluster } : {}),
  });
  // Messages written while no process held the Discord gateway are read back by the one that takes it over.
  clustered?.chat.onGatewayTakenOver(
    () =>
      void app
        ?.catchUp()
        .catch((err: unknown) => logger.warn({ err }, 'catching up after the gateway takeover failed')),
  );
  started = app.start();
  await started;
  // With `--expose-gc` (the start script's flag) the heap a burst grew is handed back once Errand is quiet,
  // and then the native memory the collection freed (glibc's malloc_trim, where there is glibc).
  const heap = nodeHeapSignals();
  if (heap) {
    startIdleHeapRelease({
      signals: heap,
      every: unrefInterval,
      onCollect: (before, after) =>
        logger.debug(
          { beforeMb: Math.round(before / 2 ** 20), afterMb: Math.round(after / 2 ** 20) },
          'quiet: heap handed back',
        ),
    });
  }
  logger.info(
    { platforms: config.platforms, database: config.DATABASE_PATH, model: config.OPENAI_MODEL },
    'errand started',
  );
  // A warning, not a reason to exit: the endpoint may come up later, or not list models at all.
  void checkModelEndpoint({
    baseUrl: config.OPENAI_BASE_URL,
    apiKey: config.OPENAI_API_KEY,
    model: config.OPENAI_MODEL,
    fetch: globalThis.fetch,
  }).then((problem) => {
    if (problem === null) return;
    logger.warn({ baseUrl: config.OPENAI_BASE_URL ?? null, model: config.OPENAI_MODEL }, problem);
    if (consoleMode) process.stderr.write(`Warning: ${problem}\n`);
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`Errand failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
