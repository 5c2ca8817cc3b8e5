import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { FAKE_DISCORD_TOKEN, startFakeDiscord, type FakeDiscord } from '../tests/fakes/fake-discord.js';
import { lastUserText, startFakeOpenAI, type FakeOpenAI } from '../tests/fakes/fake-openai.js';
import type { BenchFigure } from './benchmark.js';
import { startBotProcess } from './bot-process.js';
import { alternateBlocks, closedLoop, type LoopResult, type LoopSide } from './closed-loop.js';
import { startErrandEntry } from './entry-process.js';
import { callMix, percentile } from './overhead-figures.js';
import { procCpuMs } from './proc-cpu.js';

/**
 * The outside perf harness's Discord method (`../shared/blackbox-perf`, `discordPhase`): 20 warm-up
 * mentions, then BENCH_DISCORD_MESSAGES (100) per bot in 4 alternating blocks, one at a time with
 * 125 ms between mentions, all in the one channel of the fake guild.
 */
const WARMUP = 20;
const MESSAGES = Number(process.env.BENCH_DISCORD_MESSAGES ?? 100);
const BLOCKS = 4;
const GAP_MS = 125;
const REPLY_MS = 15_000;
const TOKEN = /\btok\w+\b/g;

interface Bot {
  readonly side: LoopSide;
  readonly fake: FakeDiscord;
  readonly model: FakeOpenAI;
  stop(): Promise<void>;
}

/**
 * A side on its own fake Discord and fake model; the model echoes the mention, and a mention is answered
 * when a POST or PATCH of a message holding `ECHO` and its token reaches the fake (in the channel or a thread).
 * The bare bot answers in the channel, as the outside baseline does; the bare threaded bot opens a thread on the
 * mention first and answers there, as Errand does.
 */
async function startSide(name: 'bare' | 'bare-thread' | 'errand'): Promise<Bot> {
  const model = await startFakeOpenAI();
  model.respondWith((r) => ({
    text: `ECHO: ${lastUserText(r)
      .replace(/<@[^>]+>/g, '')
      .trim()}`,
  }));
  // As the outside harness's fake: no per-channel message limit. Its bare bot answers 8 mentions a second in the one
  // channel, which Discord's 5 per 5 s would hold back (that wait is not the overhead measured, and it took minutes).
  const fake = await startFakeDiscord({ messageLimit: { count: 1_000_000, windowMs: 1000 } });
  const waiting = new Map<string, (t: number) => void>();
  fake.onCall = (call) => {
    if (!/^(POST|PATCH)$/.test(call.method) || !/\/messages(\/\d+)?$/.test(call.path) || call.status !== 200) return;
    const text = JSON.stringify(call.body ?? '');
    if (!text.includes('ECHO')) return;
    const t = performance.now();
    for (const tok of text.match(TOKEN) ?? []) {
      waiting.get(tok)?.(t);
      waiting.delete(tok);
    }
  };
  const dir = mkdtempSync(join(tmpdir(), 'errand-bench-outside-discord-'));
  let pid: number;
  let stop: () => Promise<void>;
  if (name === 'errand') {
    const env = {
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: model.baseUrl,
      DATABASE_PATH: join(dir, 'errand.db'),
      LOG_LEVEL: 'info',
      DEFAULT_TIMEZONE: 'UTC',
      STREAMING: 'false',
      DISCORD_TOKEN: FAKE_DISCORD_TOKEN,
      DISCORD_API_URL: fake.apiUrl,
    };
    let seen = 0;
    // As outside: ready a second after the gateway IDENTIFY (READY and GUILD_CREATE follow it at once).
    const errand = await startErrandEntry(env, async () => fake.stats.identifies > 0 && seen++ > 10);
    pid = errand.pid;
    stop = errand.stop;
  } else {
    const bot = await startBotProcess('discord-bot.js', {
      KIND: 'bare',
      BARE_REPLY: name === 'bare' ? 'channel' : 'thread',
      MODEL_URL: model.baseUrl,
      DISCORD_TOKEN: FAKE_DISCORD_TOKEN,
      DISCORD_API_URL: fake.apiUrl,
      DISCORD_GUILD_ID: fake.guildId,
    });
    pid = bot.pid;
    stop = bot.stop;
  }
  const send = async (i: number): Promise<number | null> => {
    // Measured mentions come GAP_MS apart; the warm-up ones (negative i) back to back, as nothing of them is measured.
    if (i >= 0) await new Promise((r) => setTimeout(r, GAP_MS));
    const tok = `tok${i < 0 ? `W${String(-i)}` : String(i)}`;
    const t0 = performance.now();
    const answered = new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => (waiting.delete(tok), resolve(null)), REPLY_MS);
      waiting.set(tok, (t) => (clearTimeout(timer), resolve(t)));
    });
    fake.userMessage(fake.general.id, `<@${fake.bot.id}> hello ${tok}`);
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
  `p50 ${percentile(r.latencies, 50).toFixed(1)} ms, p99 ${percentile(r.latencies, 99).toFixed(1)} ms, CPU ${r.cpuMs === null ? 'n/a' : (r.cpuMs / r.sent).toFixed(2)} ms/msg, ${String(r.latencies.length)}/${String(r.sent)} answered`;

/**
 * `discord_overhead_ratio` (p50) and `discord_cpu_ratio`, Errand's `npm start` command ÷ a bare discord.js bot, as
 * measured outside; and `discord_thread_overhead_ratio`, Errand ÷ a bare bot that also opens the thread DESIGN.md
 * asks for (one more REST call and one more gateway event per mention, which the outside baseline does not make).
 */
export async function discordLikeOutside(): Promise<BenchFigure[]> {
  const bots: Bot[] = [];
  try {
    bots.push(await startSide('bare'), await startSide('errand'), await startSide('bare-thread'));
    for (const b of bots) {
      const w = await closedLoop({ ...b.side, send: (i) => b.side.send(-1 - i) }, 0, WARMUP, 1);
      if (w.latencies.length === 0) throw new Error(`${b.side.name} never answered during the warm-up`);
    }
    const calls0 = bots.map((b) => b.fake.calls.length);
    const results = await alternateBlocks(
      bots.map((b) => b.side),
      { n: MESSAGES, blocks: BLOCKS, concurrency: 1 },
    );
    const bare = results.get('bare')!;
    const errand = results.get('errand')!;
    const threaded = results.get('bare-thread')!;
    const mix = (i: number) =>
      callMix(
        bots[i]!.fake.calls.slice(calls0[i]).map((c) => `${c.method} ${c.path.replace(/\d{15,}/g, ':id')}`),
        MESSAGES,
      );
    const cpu = (r: LoopResult) => (r.cpuMs === null ? Number.NaN : r.cpuMs / r.sent);
    const how = `${String(MESSAGES)} mentions each in ${String(BLOCKS)} alternating blocks, one at a time ${String(GAP_MS)} ms apart, in one channel; the bare bot answers in the channel; Errand as \`npm start\` runs it (STREAMING=false); load average ${loadavg()[0]!.toFixed(2)}`;
    return [
      {
        name: 'discord_overhead_ratio',
        value: percentile(errand.latencies, 50) / percentile(bare.latencies, 50),
        unit: 'x',
        detail: `Errand ${summary(errand)}; bare discord.js bot ${summary(bare)}; ${how}`,
      },
      {
        name: 'discord_thread_overhead_ratio',
        value: percentile(errand.latencies, 50) / percentile(threaded.latencies, 50),
        unit: 'x',
        detail: `Errand p50 ÷ a bare discord.js bot that opens a thread on the mention and answers there (${summary(threaded)}); CPU ${(cpu(errand) / cpu(threaded)).toFixed(2)}x; its REST calls per message: ${mix(2)}`,
      },
      {
        name: 'discord_cpu_ratio',
        value: cpu(errand) / cpu(bare),
        unit: 'x',
        detail: `CPU per message from /proc (all threads; includes the 125 ms gaps' idle work): Errand ${cpu(errand).toFixed(2)} ms vs bare ${cpu(bare).toFixed(2)} ms; REST calls per message: Errand ${mix(1)}; bare ${mix(0)}`,
      },
    ];
  } finally {
    for (const b of bots) await b.stop();
  }
}
