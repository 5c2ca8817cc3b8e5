import { performance } from 'node:perf_hooks';
import { startFakeOpenAI, type FakeOpenAI } from '../tests/fakes/fake-openai.js';
import { FakeSlack, type Delivery } from '../tests/fakes/fake-slack.js';
import type { Benchmark } from './benchmark.js';
import { cpuMs, startBotProcess, type BotProcess, type CpuSample } from './bot-process.js';
import { callMix, overheadFigures, percentile, type OverheadSample } from './overhead-figures.js';
import { slackLikeOutside } from './slack-like-outside.js';

/** Mentions per bot before (warm-up) and while CPU and latency are measured. */
interface Rounds {
  readonly warmup: number;
  readonly messages: number;
}
/** BENCH_WARMUP / BENCH_MESSAGES override the rounds (longer runs for profiles and steadier figures). */
const LIKE_FOR_LIKE: Rounds = {
  warmup: Number(process.env.BENCH_WARMUP ?? 30),
  messages: Number(process.env.BENCH_MESSAGES ?? 200),
};
/** The streamed pair of bots is a second run after the first: fewer rounds keep the benchmark short. */
const STREAMED: Rounds = { warmup: 5, messages: 40 };
const CONVERSATIONS = 200;
const EXTRA_EVENTS = 1000;
/** 200 conversations each getting an event every second: far busier than people type. */
const EVENTS_PER_SECOND = 200;
const USER = 'U0BENCH01';

/** Mentions the bot in `channel` and resolves with the ms until its reply reached the fake. */
function mentionAndTime(fake: FakeSlack, channel: string, i: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    let root = '';
    // The reply is a post in the thread, or (Errand streaming) the stop of the answer streamed into it.
    const inThread = (ts: unknown) =>
      root !== '' && fake.messages(channel, root).some((m) => m.ts === ts && m.ts !== root);
    fake.onCall = (call) => {
      const reply =
        (call.method === 'chat.postMessage' && call.args.thread_ts === root && root !== '') ||
        (call.method === 'chat.stopStream' && inThread(call.args.ts));
      if (reply && call.status === 200) {
        fake.onCall = null;
        resolve(performance.now() - t0);
      }
    };
    // mention() stores the person's message before it awaits the deliveries, so its ts is known here.
    fake.mention({ user: USER, channel, text: `hello ${i}`, order: 'together' }).catch(reject);
    root = fake.messages(channel).at(-1)?.ts ?? '';
  });
}

/** Both bots in their own processes, each on its own fake Slack, on the same zero-latency model. */
async function startBots(
  model: FakeOpenAI,
  extra: Record<string, string> = {},
): Promise<{ bots: Record<Kind, { fake: FakeSlack; bot: BotProcess }>; close: () => Promise<void> }> {
  const started: { fake: FakeSlack; bot: BotProcess }[] = [];
  const start = async (kind: Kind) => {
    const fake = await FakeSlack.start({ rateLimit: null });
    const bot = await startBotProcess('slack-bot.js', {
      KIND: kind,
      MODEL_URL: model.baseUrl,
      SLACK_API_URL: fake.apiUrl,
      SIGNING_SECRET: fake.signingSecret,
      BOT_ID: fake.botId,
      BOT_USER_ID: fake.botUserId,
      ...extra,
    });
    fake.useHttpReceiver(`http://127.0.0.1:${String(bot.info.port)}/slack/events`);
    started.push({ fake, bot });
    return { fake, bot };
  };
  const bots = { bare: await start('bare'), errand: await start('errand') };
  return {
    bots,
    close: async () => {
      for (const { fake, bot } of started) {
        await bot.stop();
        await fake.close();
      }
    },
  };
}

type Kind = 'bare' | 'errand';

/**
 * Mention → reply latency and CPU per message of both bots, alternating one mention to each, so
 * both see the same machine (other processes, GC, JIT) and the ratio compares like with like. Each
 * mention arrives as `app_mention` and `message` together, and every post of a bot comes back to
 * it as a `message` event, as on Slack. CPU is each bot process's own `process.cpuUsage()` from the
 * first measured mention until the last echo was acknowledged (the fakes and the model run here).
 */
async function overhead(model: FakeOpenAI, streaming: boolean, { warmup, messages }: Rounds): Promise<OverheadSample> {
  const { bots, close } = await startBots(model, { STREAMING: String(streaming) });
  const latencies: Record<Kind, number[]> = { bare: [], errand: [] };
  const cpuStart: Partial<Record<Kind, CpuSample>> = {};
  const callsStart = { bare: 0, errand: 0 };
  try {
    for (let i = 0; i < warmup + messages; i++) {
      for (const kind of ['bare', 'errand'] as const) {
        const { fake, bot } = bots[kind];
        if (i === warmup) {
          cpuStart[kind] = await bot.cpu();
          callsStart[kind] = fake.calls.length;
        }
        const ms = await mentionAndTime(fake, kind === 'bare' ? 'C0BAREBOT' : 'C0ERRAND1', i);
        await fake.settle();
        if (i >= warmup) latencies[kind].push(ms);
      }
    }
    await bots.errand.bot.idle();
    await Promise.all([bots.bare.fake.settle(), bots.errand.fake.settle()]);
    const cpuPerMessage = { bare: 0, errand: 0 };
    for (const kind of ['bare', 'errand'] as const)
      cpuPerMessage[kind] = cpuMs(cpuStart[kind]!, await bots[kind].bot.cpu()) / messages;
    const calls = (kind: Kind) =>
      callMix(
        bots[kind].fake.calls.slice(callsStart[kind]).map((c) => c.method),
        messages,
      );
    return { latencies, cpuPerMessage, callsPerMessage: { bare: calls('bare'), errand: calls('errand') } };
  } finally {
    await close();
  }
}

/**
 * Ack latency under load: 200 conversations are started and held running at the model, then
 * 1 000 more events (thread follow-ups, other bots' posts) arrive at a steady rate while they run.
 */
async function ackUnderLoad(
  model: FakeOpenAI,
): Promise<{ acks: Delivery[]; startAcks: Delivery[]; seconds: number; running: number }> {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  model.respondWith(() => ({ text: 'done', gate }));
  const fake = await FakeSlack.start({ rateLimit: null });
  const bot = await startBotProcess('slack-bot.js', {
    KIND: 'errand',
    MODEL_URL: model.baseUrl,
    SLACK_API_URL: fake.apiUrl,
    SIGNING_SECRET: fake.signingSecret,
    BOT_ID: fake.botId,
    BOT_USER_ID: fake.botUserId,
    MAX_CONCURRENT_RUNS: String(CONVERSATIONS),
  });
  fake.useHttpReceiver(`http://127.0.0.1:${String(bot.info.port)}/slack/events`);
  const channels = Array.from({ length: 20 }, (_, i) => `C0LOAD${String(i).padStart(3, '0')}`);
  const before = model.requests.length;
  // Start the 200 conversations 20 at a time (Slack spreads deliveries too), then wait until all are at the model.
  const mentions: { ts: string; deliveries: Delivery[] }[] = [];
  for (let i = 0; i < CONVERSATIONS; i += 20) {
    mentions.push(
      ...(await Promise.all(
        Array.from({ length: 20 }, (_, j) =>
          fake.mention({
            user: USER,
            channel: channels[(i + j) % channels.length]!,
            text: `job ${i + j}`,
            order: 'together',
          }),
        ),
      )),
    );
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
    const channel = channels[(n % mentions.length) % channels.length]!;
    sent.push(
      n % 2 === 0
        ? fake.userMessage({ user: USER, channel, text: `more ${n}`, threadTs: m.ts }).then((r) => r.delivery)
        : fake.otherBotMessage({ channel, text: `bot chatter ${n}` }),
    );
  }
  const acks = await Promise.all(sent);
  const seconds = (performance.now() - started) / 1000;
  release();
  await bot.idle();
  await bot.stop();
  await fake.close();
  return { acks, startAcks, seconds, running };
}

/**
 * Slack on Errand: mention → threaded reply latency against a bare Bolt app doing the same
 * platform work (model call, reply in the thread) on the same fake Slack and zero-latency fake
 * model; and how fast events are acknowledged while 200 conversations run at once.
 */
export const benchmark: Benchmark = {
  name: 'slack',
  figures: [
    'slack_overhead_ratio',
    'slack_cpu_ratio',
    'slack_throughput_ratio',
    'slack_sequential_overhead_ratio',
    'slack_sequential_cpu_ratio',
    'slack_streaming_overhead_ratio',
    'slack_streaming_cpu_ratio',
    'slack_ack_p99_ms',
  ],
  async run() {
    // The headline ratios: the outside harness's method and traffic against Errand's real entry point.
    const outside = await slackLikeOutside();
    const model = await startFakeOpenAI();
    try {
      const sample = await overhead(model, false, LIKE_FOR_LIKE);
      const streamed = await overhead(model, true, STREAMED);
      const load = await ackUnderLoad(model);
      const ackMs = load.acks.map((a) => a.ms);
      const startMs = load.startAcks.map((a) => a.ms);
      const failed = load.acks.filter((a) => a.status !== 200).length;
      return [
        ...outside,
        // The previous method, kept beside them: one mention at a time, twins, Errand composed in process (bench/slack-bot.ts).
        ...overheadFigures(
          'slack_sequential',
          'bare Bolt app',
          sample,
          'one mention at a time to each bot in turn, each in its own process on its own fake Slack over signed HTTP; twins delivered together, every bot post echoed back',
          streamed,
        ).map((f) =>
          f.name.startsWith('slack_sequential_streaming')
            ? { ...f, name: f.name.replace('slack_sequential_streaming', 'slack_streaming') }
            : f,
        ),
        {
          name: 'slack_ack_p99_ms',
          value: percentile(ackMs, 99),
          unit: 'ms',
          detail: `${ackMs.length} events acknowledged at ${EVENTS_PER_SECOND}/s while ${load.running} runs were in flight: p50 ${percentile(ackMs, 50).toFixed(1)} ms, max ${Math.max(...ackMs).toFixed(1)} ms, ${(ackMs.length / load.seconds).toFixed(0)} events/s, ${failed} not 200; starting the 200 (twins, 20 mentions at a time): p99 ${percentile(startMs, 99).toFixed(1)} ms`,
        },
      ];
    } finally {
      await model.close();
    }
  },
};
