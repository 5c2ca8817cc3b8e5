import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createSlackAdapter,
  slackOptionsFromConfig,
  type SlackTuning,
} from '../../adapters/slack/create-slack-adapter.js';
import { createApp, type App, type ManagedToolSource } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import type { Monitoring } from '../../src/metrics/monitoring.js';
import type { Logger } from '../../src/logger.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai.js';
import { FakeSlack } from '../fakes/fake-slack.js';
import { FAST_TUNING } from './slack-harness.js';

/** Errand on Slack that can be stopped and started again on the same database, fakes kept. */
export interface RestartableSlackErrand {
  readonly slack: FakeSlack;
  readonly model: FakeOpenAI;
  readonly clock: FakeClock;
  /** The running app (throws when stopped). */
  app(): App;
  /** Starts a fresh process-like App (new adapter, new memory) on the same database, the configuration read again. */
  start(): Promise<App>;
  /** Stops the app as a shutdown would; the database file stays. */
  stop(): Promise<void>;
  close(): Promise<void>;
}

export async function startRestartableSlackErrand(
  opts: {
    mode?: 'http' | 'socket';
    tuning?: SlackTuning;
    env?: Record<string, string>;
    externalTools?: () => ManagedToolSource;
    logger?: Logger;
    outboxBackoffMs?: (attempts: number) => number;
    /** `/healthz` and `/metrics` (as main.ts passes them with METRICS_PORT set); kept across restarts. */
    monitoring?: Monitoring;
  } = {},
): Promise<RestartableSlackErrand> {
  const dir = mkdtempSync(join(tmpdir(), 'errand-slack-restart-'));
  const model = await startFakeOpenAI();
  const slack = await FakeSlack.start({ rateLimit: { burst: 20, perSecond: 400 } });
  const clock = new FakeClock(Date.now());
  const mode = opts.mode ?? 'http';
  const env = {
    OPENAI_BASE_URL: model.baseUrl,
    OPENAI_API_KEY: 'test-key',
    DATABASE_PATH: join(dir, 'errand.db'),
    SLACK_BOT_TOKEN: 'xoxb-test-token',
    SLACK_MODE: mode,
    SLACK_SIGNING_SECRET: slack.signingSecret,
    SLACK_APP_TOKEN: 'xapp-test-token',
    SLACK_PORT: '0',
    SLACK_API_URL: slack.apiUrl,
    ...opts.env,
  };
  let current: App | null = null;
  const handle: RestartableSlackErrand = {
    slack,
    model,
    clock,
    app() {
      if (!current) throw new Error('Errand is stopped');
      return current;
    },
    async start() {
      // A restarted process reads its configuration (and ERRAND_CONFIG's file) again.
      const config = loadConfig(env);
      const adapter = createSlackAdapter({
        ...slackOptionsFromConfig(config),
        host: '127.0.0.1',
        tuning: { ...FAST_TUNING, ...opts.tuning },
        ...(opts.logger ? { logger: opts.logger } : {}),
      });
      // Tool servers are started and closed with each process, as main.ts does: a fresh source per start.
      const externalTools = opts.externalTools?.();
      current = await createApp({
        config,
        adapters: [adapter],
        clock,
        modelBackoffMs: () => 5,
        ...(externalTools ? { externalTools } : {}),
        ...(opts.logger ? { logger: opts.logger } : {}),
        ...(opts.outboxBackoffMs ? { outboxBackoffMs: opts.outboxBackoffMs } : {}),
        ...(opts.monitoring ? { monitoring: opts.monitoring } : {}),
      });
      if (mode === 'http') {
        // Events sent while start-up runs (catch-up) must find the new receiver.
        await current.start();
        slack.useHttpReceiver(`http://127.0.0.1:${adapter.httpPort()}/slack/events`);
      } else await current.start();
      return current;
    },
    async stop() {
      const app = current;
      current = null;
      await app?.stop();
    },
    async close() {
      await handle.stop();
      await slack.close();
      await model.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await handle.start();
  return handle;
}
