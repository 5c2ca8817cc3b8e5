import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { lastUserText, startFakeOpenAI, type FakeOpenAI } from '../tests/fakes/fake-openai.js';
import { FakeSlack } from '../tests/fakes/fake-slack.js';
import { freePort, listening } from '../tests/support/free-port.js';
import type { BenchFigure } from './benchmark.js';
import { startBotProcess } from './bot-process.js';
import { alternateBlocks, closedLoop, type LoopResult, type LoopSide } from './closed-loop.js';
import { startErrandEntry } from './entry-process.js';
import { callMix, percentile } from './overhead-figures.js';
import { procCpuMs } from './proc-cpu.js';

/**
 * The outside perf harness's Slack method (`../shared/blackbox-perf`, `slackPhase`): 20 warm-up mentions,
 * then BENCH_MESSAGES (400) per bot in 4 blocks alternating which bot goes first, a closed loop of 20
 * concurrent mentions, each in a channel of its own. BENCH_CONCURRENCY changes the 20.
 */
const WARMUP = 20;
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 400);
const BLOCKS = 4;
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 20);
/** A mention not answered in this time counts as lost (as outside). */
const REPLY_MS = 15_000;
const USER = 'U0BENCH01';
const TOKEN = /\btok\w+\b/g;

interface Bot {
  readonly side: LoopSide;
  readonly fake: FakeSlack;
  readonly model: FakeOpenAI;
  stop(): Promise<void>;
}

/**
 * A side of the comparison on its own fake Slack and fake model (as outside): the model echoes the
 * mention (`ECHO: …`); a mention is answered when a `chat.postMessage` or `chat.update` holding `ECHO`
 * and its token reaches the fake. Mentions arrive as `app_mention` only (the outside harness's perf
 * phase sends no `message` twin), each in channel `C0L<i>`; every bot post is echoed back as an event.
 */
async function startSide(name: 'bare' | 'errand'): Promise<Bot> {
  const model = await startFakeOpenAI();
  model.respondWith((r) => ({
    text: `ECHO: ${lastUserText(r)
      .replace(/<@[^>]+>/g, '')
      .trim()}`,
  }));
  const fake = await FakeSlack.start({ rateLimit: null });
  const waiting = new Map<string, (t: number) => void>();
  fake.onCall = (call) => {
    const text = typeof call.args.text === 'string' ? call.args.text : '';
    if (
      (call.method !== 'chat.postMessage' && call.method !== 'chat.update') ||
      call.status !== 200 ||
      !text.includes('ECHO')
    )
      return;
    const t = performance.now();
    for (const tok of text.match(TOKEN) ?? []) {
      waiting.get(tok)?.(t);
      waiting.delete(tok);
    }
  };
  let pid: number;
  let stop: () => Promise<void>;
  const dir = mkdtempSync(join(tmpdir(), 'errand-bench-outside-'));
  if (name === 'errand') {
    const port = await freePort();
    fake.useHttpReceiver(`http://127.0.0.1:${String(port)}/slack/events`);
    const errand = await startErrandEntry(
      {
        OPENAI_API_KEY: 'sk-test',
        OPENAI_BASE_URL: model.baseUrl,
        DATABASE_PATH: join(dir, 'errand.db'),
        LOG_LEVEL: 'info',
        DEFAULT_TIMEZONE: 'UTC',
        STREAMING: 'false',
        SLACK_BOT_TOKEN: 'xoxb-bench',
        SLACK_SIGNING_SECRET: fake.signingSecret,
        SLACK_MODE: 'http',
        SLACK_PORT: String(port),
        SLACK_API_URL: fake.apiUrl,
      },
      () => listening(port),
    );
    pid = errand.pid;
    stop = errand.stop;
  } else {
    const bot = await startBotProcess('slack-bot.js', {
      KIND: 'bare',
      MODEL_URL: model.baseUrl,
      SLACK_API_URL: fake.apiUrl,
      SIGNING_SECRET: fake.signingSecret,
      BOT_ID: fake.botId,
      BOT_USER_ID: fake.botUserId,
    });
    fake.useHttpReceiver(`http://127.0.0.1:${String(bot.info.port)}/slack/events`);
    pid = bot.pid;
    stop = bot.stop;
  }
  const send = async (i: number): Promise<number | null> => {
    const tok = `tok${i < 0 ? `W${String(-i)}` : String(i)}`;
    const t0 = performance.now();
    const answered = new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => (waiting.delete(tok), resolve(null)), REPLY_MS);
      waiting.set(tok, (t) => (clearTimeout(timer), resolve(t)));
    });
    const mention = () =>
      fake.mention({
        user: USER,
        channel: `C0L${tok.slice(3).toUpperCase()}`,
        text: `hello ${tok}`,
        order: 'mention-only',
      });
    // A keep-alive socket the bot's server closed while the other bot's block ran is reset on first use: the event never arrived, so send it again.
    await mention().catch((err: unknown) => {
      if ((err as { code?: unknown }).code !== 'ECONNRESET') throw err;
      return mention();
    });
    const t = await answered;
    return t === null ? null : t - t0;
  };
  return {
    side: { name, send, cpuMs: () => procCpuMs(pid) },
    fake,
    model,
    stop: async () => {
      await stop();
      await fake.close();
      await model.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const summary = (r: LoopResult) =>
  `p50 ${percentile(r.latencies, 50).toFixed(1)} ms, p99 ${percentile(r.latencies, 99).toFixed(1)} ms, ${(r.latencies.length / r.seconds).toFixed(1)} msgs/s, ` +
  `CPU ${r.cpuMs === null ? 'n/a' : (r.cpuMs / r.sent).toFixed(2)} ms/msg, ${String(r.latencies.length)}/${String(r.sent)} answered`;

/**
 * `slack_overhead_ratio` (p50), `slack_cpu_ratio` and `slack_throughput_ratio`, Errand's `npm start`
 * command ÷ a bare Bolt app, measured as the outside harness measures them (see the constants above).
 */
export async function slackLikeOutside(): Promise<BenchFigure[]> {
  const bots: Bot[] = [];
  try {
    bots.push(await startSide('bare'), await startSide('errand'));
    for (const b of bots) {
      const w = await closedLoop({ ...b.side, send: (i) => b.side.send(-1 - i) }, 0, WARMUP, CONCURRENCY);
      if (w.latencies.length === 0) throw new Error(`${b.side.name} never answered during the warm-up`);
    }
    const calls0 = bots.map((b) => b.fake.calls.length);
    const results = await alternateBlocks(
      bots.map((b) => b.side),
      { n: MESSAGES, blocks: BLOCKS, concurrency: CONCURRENCY },
    );
    const bare = results.get('bare')!;
    const errand = results.get('errand')!;
    const mix = (i: number) =>
      callMix(
        bots[i]!.fake.calls.slice(calls0[i]).map((c) => c.method),
        MESSAGES,
      );
    const how = `${String(MESSAGES)} mentions each in ${String(BLOCKS)} alternating blocks, ${String(CONCURRENCY)} at a time (closed loop), each in its own channel, app_mention only, bot posts echoed; Errand as \`npm start\` runs it (STREAMING=false); load average ${loadavg()[0]!.toFixed(2)}`;
    const cpu = (r: LoopResult) => (r.cpuMs === null ? Number.NaN : r.cpuMs / r.sent);
    const tput = (r: LoopResult) => r.latencies.length / r.seconds;
    return [
      {
        name: 'slack_overhead_ratio',
        value: percentile(errand.latencies, 50) / percentile(bare.latencies, 50),
        unit: 'x',
        detail: `Errand ${summary(errand)}; bare Bolt app ${summary(bare)}; ${how}`,
      },
      {
        name: 'slack_cpu_ratio',
        value: cpu(errand) / cpu(bare),
        unit: 'x',
        detail: `CPU per message from /proc (all threads): Errand ${cpu(errand).toFixed(2)} ms vs bare ${cpu(bare).toFixed(2)} ms; API calls per message: Errand ${mix(1)}; bare ${mix(0)}`,
      },
      {
        name: 'slack_throughput_ratio',
        value: tput(errand) / tput(bare),
        unit: 'x',
        detail: `Errand ${tput(errand).toFixed(1)} msgs/s vs bare ${tput(bare).toFixed(1)} msgs/s`,
      },
    ];
  } finally {
    for (const b of bots) await b.stop();
  }
}
