import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, LogLevel } from '@slack/bolt';
import {
  createSlackAdapter,
  slackOptionsFromConfig,
  type SlackTuning,
} from '../adapters/slack/create-slack-adapter.js';
import OpenAI from 'openai';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { serveBotControl } from './bot-control.js';

/**
 * A benchmarked Slack bot in its own process (see bot-process.ts): `KIND=errand` is Errand as
 * `npm start` composes it (Slack adapter, pino logger at info to stdout, SQLite file), `KIND=bare`
 * the baseline: a bare Bolt app that asks the same model through the `openai` SDK as it comes (its
 * own fetch, no wrapper) and answers in the thread; Errand's model client is part of what is measured.
 */
const env = process.env;
const BOT_TOKEN = 'xoxb-bench-token';
/** Pacing is Slack's business, not the pipeline's: both bots post without waiting for tokens here. */
const TUNING: SlackTuning = { messageRate: { burst: 10_000, perSecond: 10_000 }, webApiRetries: 0 };

async function startBare(): Promise<void> {
  const openai = new OpenAI({ apiKey: 'bench', baseURL: env.MODEL_URL!, maxRetries: 0, timeout: 10_000 });
  // As the outside harness's baseline (../shared/blackbox-perf/perf/baselines/bot.mjs): no retries, warnings only, the mention as the only message.
  const app = new App({
    token: BOT_TOKEN,
    signingSecret: env.SIGNING_SECRET!,
    botId: env.BOT_ID!,
    botUserId: env.BOT_USER_ID!,
    logLevel: LogLevel.WARN,
    clientOptions: { slackApiUrl: env.SLACK_API_URL!, retryConfig: { retries: 0 } },
  });
  app.event('app_mention', async ({ event, client }) => {
    const r = await openai.chat.completions.create({
      model: 'bench',
      messages: [{ role: 'user', content: event.text }],
    });
    await client.chat.postMessage({
      channel: event.channel,
      thread_ts: event.thread_ts ?? event.ts,
      text: r.choices[0]?.message.content ?? 'ok',
    });
  });
  const server = (await app.start({ port: 0, host: '127.0.0.1' })) as Server;
  serveBotControl(
    { idle: async () => undefined, stop: async () => void (await app.stop()) },
    { port: (server.address() as AddressInfo).port },
  );
}

async function startErrand(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'errand-bench-slack-bot-'));
  const config = loadConfig({
    OPENAI_BASE_URL: env.MODEL_URL,
    OPENAI_API_KEY: 'bench',
    DATABASE_PATH: join(dir, 'errand.db'),
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_MODE: 'http',
    SLACK_SIGNING_SECRET: env.SIGNING_SECRET,
    SLACK_PORT: '0',
    SLACK_API_URL: env.SLACK_API_URL,
    MAX_CONCURRENT_RUNS: env.MAX_CONCURRENT_RUNS ?? '8',
    LOG_LEVEL: 'info',
    // The overhead benchmarks compare with a bare bot that does not stream: they set STREAMING=false, and print the streamed figure beside it.
    STREAMING: env.STREAMING ?? 'true',
  });
  const logger = createLogger(config.LOG_LEVEL);
  const adapter = createSlackAdapter({ ...slackOptionsFromConfig(config, logger), host: '127.0.0.1', tuning: TUNING });
  const app = await createApp({ config, adapters: [adapter], logger });
  await app.start();
  serveBotControl(
    {
      idle: () => app.coordinator.idle(),
      stop: async () => {
        await app.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    },
    { port: adapter.httpPort() },
  );
}

await (env.KIND === 'bare' ? startBare() : startErrand());
