import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { App } from '@slack/bolt';
import { createSlackAdapter, slackOptionsFromConfig, type SlackTuning } from '../adapters/slack/create-slack-adapter.js';
import { createOpenAiClient } from '../src/agent/llm-client.js';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { startFakeOpenAI, type FakeOpenAI } from '../tests/fakes/fake-openai.js';
import { FakeSlack, type Delivery } from '../tests/fakes/fake-slack.js';
import type { Benchmark } from './benchmark.js';

const WARMUP = 30;
const MESSAGES = 200;
const CONVERSATIONS = 200;
const EXTRA_EVENTS = 1000;
/** 200 conversations each getting an event every second: far busier than people type. */
const EVENTS_PER_SECOND = 200;
const USER = 'U0BENCH01';
const BOT_TOKEN = 'xoxb-bench-token';
/** Pacing is Slack's business, not the pipeline's: both bots post without waiting for tokens here. */
const TUNING: SlackTuning = { messageRate: { burst: 10_000, perSecond: 10_000 }, webApiRetries: 0 };

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))] ?? 0;
}

/** Mentions the bot in `channel` and resolves with the ms until its reply reached the fake. */
function mentionAndTime(fake: FakeSlack, channel: string, i: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    let root = '';
    fake.onCall = (call) => {
      if (call.method === 'chat.postMessage' && call.status === 200 && call.args.thread_ts === root && root !== '') {
        fake.onCall = null;
        resolve(performance.now() - t0);
      }
    };
    // mention() stores the person's message before it awaits the deliveries, so its ts is known here.
    fake.mention({ user: USER, channel, text: `hello ${i}` }).catch(reject);
    root = fake.messages(channel).at(-1)?.ts ?? '';
  });
}

function configFor(dir: string, fake: FakeSlack, model: FakeOpenAI, extra: Record<string, string> = {}) {
  return loadConfig({
    OPENAI_BASE_URL: model.baseUrl,
    OPENAI_API_KEY: 'bench',
    DATABASE_PATH: join(dir, `errand-${Math.random().toString(36).slice(2)}.db`),
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_MODE: 'http',
    SLACK_SIGNING_SECRET: fake.signingSecret,
    SLACK_PORT: '0',
    SLACK_API_URL: fake.apiUrl,
    ...extra,
  });
}

/** The baseline: a bare Bolt app on its own fake Slack that asks the model and answers in the thread. */
async function startBareBolt(fake: FakeSlack, model: FakeOpenAI): Promise<App> {
  const llm = createOpenAiClient({ apiKey: 'bench', baseUrl: model.baseUrl, model: 'bench', timeoutMs: 10_000 });
  const app = new App({ token: BOT_TOKEN, signingSecret: fake.signingSecret, botId: fake.botId, botUserId: fake.botUserId, clientOptions: { slackApiUrl: fake.apiUrl } });
  app.event('app_mention', async ({ event, client }) => {
    const r = await llm.complete({ messages: [{ role: 'system', content: 'sys' }, { role: 'user', content: event.text }], tools: [], signal: new AbortController().signal });
    await client.chat.postMessage({ channel: event.channel, thread_ts: event.thread_ts ?? event.ts, text: r.text ?? 'ok' });
  });
  const server = (await app.start({ port: 0, host: '127.0.0.1' })) as Server;
  fake.useHttpReceiver(`http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`);
  return app;
}

/**
 * Mention → reply latency of both bots, alternating one mention to each, so both see the same
 * machine (other processes, GC, JIT) and the ratio compares like with like.
 */
async function latencies(dir: string, model: FakeOpenAI): Promise<{ bare: number[]; errand: number[] }> {
  const bareFake = await FakeSlack.start({ rateLimit: null });
  const errandFake = await FakeSlack.start({ rateLimit: null });
  const bareApp = await startBareBolt(bareFake, model);
  const config = configFor(dir, errandFake, model);
  const adapter = createSlackAdapter({ ...slackOptionsFromConfig(config), host: '127.0.0.1', tuning: TUNING });
  const app = createApp({ config, adapters: [adapter] });
  await app.start();
  errandFake.useHttpReceiver(`http://127.0.0.1:${adapter.httpPort()}/slack/events`);
  const bare: number[] = [];
  const errand: number[] = [];
  try {
    for (let i = 0; i < WARMUP + MESSAGES; i++) {
      const b = await mentionAndTime(bareFake, 'C0BAREBOT', i);
      await bareFake.settle();
      const e = await mentionAndTime(errandFake, 'C0ERRAND1', i);
      await app.coordinator.idle();
      await errandFake.settle();
      if (i >= WARMUP) {
        bare.push(b);
        errand.push(e);
      }
    }
  } finally {
    await app.stop();
    await bareApp.stop();
    await bareFake.close();
    await errandFake.close();
  }
  return { bare, errand };
}

/**
 * Ack latency under load: 200 conversations are started and held running at the model, then
 * 1 000 more events (thread follow-ups, other bots' posts) arrive at a steady rate while they run.
 */
async function ackUnderLoad(dir: string, fake: FakeSlack, model: FakeOpenAI): Promise<{ acks: Delivery[]; startAcks: Delivery[]; seconds: number; running: number }> {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  model.respondWith(() => ({ text: 'done', gate }));
  const config = configFor(dir, fake, model, { MAX_CONCURRENT_RUNS: String(CONVERSATIONS) });
  const adapter = createSlackAdapter({ ...slackOptionsFromConfig(config), host: '127.0.0.1', tuning: TUNING });
  const app = createApp({ config, adapters: [adapter] });
  await app.start();
  fake.useHttpReceiver(`http://127.0.0.1:${adapter.httpPort()}/slack/events`);
  const channels = Array.from({ length: 20 }, (_, i) => `C0LOAD${String(i).padStart(3, '0')}`);
  const before = model.requests.length;
  // Start the 200 conversations 20 at a time (Slack spreads deliveries too), then wait until all are at the model.
  const mentions: { ts: string; deliveries: Delivery[] }[] = [];
  for (let i = 0; i < CONVERSATIONS; i += 20) {
    mentions.push(...(await Promise.all(Array.from({ length: 20 }, (_, j) => fake.mention({ user: USER, channel: channels[(i + j) % channels.length]!, text: `job ${i + j}`, order: 'together' })))));
  }
  while (model.requests.length - before < CONVERSATIONS) await new Promise((r) => setTimeout(r, 5));
  const running = model.requests.length - before;
  const startAcks = mentions.flatMap((m) => m.deliveries);
  // Open loop: events arrive at a steady EVENTS_PER_SECOND whatever the acks do, as Slack sends them.
  const started = performance.now();
  const sent: Promise<Delivery>[] = [];
  for (let n = 0; n < EXTRA_EVENTS; n++) {
    const due = started + (n * 1000) / EVENTS_PER_SECOND;
    while (performance.now() < due) await new Promise((r) => setTimeout(r, Math.max(0, due - performance.now())));
    const m = mentions[n % mentions.length]!;
    const channel = channels[n % mentions.length % channels.length]!;
    sent.push(
      n % 2 === 0
        ? fake.userMessage({ user: USER, channel, text: `more ${n}`, threadTs: m.ts }).then((r) => r.delivery)
        : fake.otherBotMessage({ channel, text: `bot chatter ${n}` }),
    );
  }
  const acks = await Promise.all(sent);
  const seconds = (performance.now() - started) / 1000;
  release();
  await app.coordinator.idle();
  await app.stop();
  return { acks, startAcks, seconds, running };
}

/**
 * Slack on Errand: mention → threaded reply latency against a bare Bolt app doing the same
 * platform work (model call, reply in the thread) on the same fake Slack and zero-latency fake
 * model; and how fast events are acknowledged while 200 conversations run at once.
 */
export const benchmark: Benchmark = {
  name: 'slack',
  figures: ['slack_overhead_ratio', 'slack_ack_p99_ms'],
  async run() {
    const model = await startFakeOpenAI();
    const fake = await FakeSlack.start({ rateLimit: null });
    const dir = mkdtempSync(join(tmpdir(), 'errand-bench-slack-'));
    try {
      const { bare, errand } = await latencies(dir, model);
      const load = await ackUnderLoad(dir, fake, model);
      const b = percentile(bare, 50);
      const e = percentile(errand, 50);
      const ackMs = load.acks.map((a) => a.ms);
      const startMs = load.startAcks.map((a) => a.ms);
      const failed = load.acks.filter((a) => a.status !== 200).length;
      return [
        {
          name: 'slack_overhead_ratio',
          value: e / b,
          unit: 'x',
          detail: `median mention → reply: Errand ${e.toFixed(2)} ms vs bare Bolt app ${b.toFixed(2)} ms, ${MESSAGES} mentions each, alternating (both twins delivered, signed, over HTTP)`,
        },
        {
          name: 'slack_ack_p99_ms',
          value: percentile(ackMs, 99),
          unit: 'ms',
          detail: `${ackMs.length} events acknowledged at ${EVENTS_PER_SECOND}/s while ${load.running} runs were in flight: p50 ${percentile(ackMs, 50).toFixed(1)} ms, max ${Math.max(...ackMs).toFixed(1)} ms, ${(ackMs.length / load.seconds).toFixed(0)} events/s, ${failed} not 200; starting the 200 (twins, 20 mentions at a time): p99 ${percentile(startMs, 99).toFixed(1)} ms`,
        },
      ];
    } finally {
      await fake.close();
      await model.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
