import { performance } from 'node:perf_hooks';
import { FAKE_DISCORD_TOKEN, startFakeDiscord, type FakeDiscord } from '../tests/fakes/fake-discord.js';
import { startFakeOpenAI, type FakeOpenAI } from '../tests/fakes/fake-openai.js';
import type { Benchmark } from './benchmark.js';
import { cpuMs, startBotProcess, type BotProcess, type CpuSample } from './bot-process.js';
import { discordLikeOutside } from './discord-like-outside.js';
import { callMix, overheadFigures, type OverheadSample } from './overhead-figures.js';

const WARMUP = 20;
const MESSAGES = 100;
/** How long the bots get to take in the echoes of their last posts before CPU is read. */
const ECHO_GRACE_MS = 200;

type Kind = 'bare' | 'errand';

/** Mentions the bot once and resolves with the time until its reply reached the fake, in ms (streaming: its first visible piece, edited afterwards). */
function mentionAndTime(fake: FakeDiscord, i: number): Promise<number> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const msg = fake.userMessage(fake.general.id, `<@${fake.bot.id}> hello ${i}`);
    fake.onCall = (call) => {
      if (call.method === 'POST' && call.path === `/channels/${msg.id}/messages` && call.status === 200) {
        fake.onCall = null;
        resolve(performance.now() - t0);
      }
    };
  });
}

/**
 * Mention → reply latency and CPU per message of Errand on Discord (dedupe, thread, persistence,
 * agent loop, queue) against a bare discord.js bot doing the same platform work (model call,
 * thread, reply). Each bot runs in its own process with the real discord.js on its own fake
 * Discord, which echoes every post (MESSAGE_CREATE) and thread start (MESSAGE_UPDATE) back as
 * Discord does; one mention to each in turn, so both see the same machine. CPU is each bot
 * process's own `process.cpuUsage()` over the measured mentions (fakes and model run here).
 */
async function overhead(model: FakeOpenAI, streaming: boolean): Promise<OverheadSample> {
  const started: { fake: FakeDiscord; bot: BotProcess }[] = [];
  try {
    const start = async (kind: Kind) => {
      const fake = await startFakeDiscord();
      const bot = await startBotProcess('discord-bot.js', {
        KIND: kind,
        MODEL_URL: model.baseUrl,
        DISCORD_TOKEN: FAKE_DISCORD_TOKEN,
        DISCORD_API_URL: fake.apiUrl,
        DISCORD_GUILD_ID: fake.guildId,
        STREAMING: String(streaming),
      });
      started.push({ fake, bot });
      return { fake, bot };
    };
    const bots = { bare: await start('bare'), errand: await start('errand') };
    const latencies: Record<Kind, number[]> = { bare: [], errand: [] };
    const cpuStart: Partial<Record<Kind, CpuSample>> = {};
    const callsStart = { bare: 0, errand: 0 };
    for (let i = 0; i < WARMUP + MESSAGES; i++) {
      for (const kind of ['bare', 'errand'] as const) {
        const { fake, bot } = bots[kind];
        if (i === WARMUP) {
          cpuStart[kind] = await bot.cpu();
          callsStart[kind] = fake.calls.length;
        }
        const ms = await mentionAndTime(fake, i);
        if (i >= WARMUP) latencies[kind].push(ms);
      }
    }
    await bots.errand.bot.idle();
    // Gateway echoes carry no acknowledgement: give both bots the same short grace to take them in.
    await new Promise((r) => setTimeout(r, ECHO_GRACE_MS));
    const cpuPerMessage = { bare: 0, errand: 0 };
    for (const kind of ['bare', 'errand'] as const)
      cpuPerMessage[kind] = cpuMs(cpuStart[kind]!, await bots[kind].bot.cpu()) / MESSAGES;
    const calls = (kind: Kind) =>
      callMix(
        bots[kind].fake.calls.slice(callsStart[kind]).map((c) => `${c.method} ${c.path.replace(/\d{15,}/g, ':id')}`),
        MESSAGES,
      );
    return { latencies, cpuPerMessage, callsPerMessage: { bare: calls('bare'), errand: calls('errand') } };
  } finally {
    for (const { fake, bot } of started) {
      await bot.stop();
      await fake.close();
    }
  }
}

/** Discord overhead with Errand's answers posted whole (like for like), then streamed (its default). */
export const benchmark: Benchmark = {
  name: 'discord',
  figures: [
    'discord_overhead_ratio',
    'discord_thread_overhead_ratio',
    'discord_cpu_ratio',
    'discord_sequential_overhead_ratio',
    'discord_sequential_cpu_ratio',
    'discord_streaming_overhead_ratio',
    'discord_streaming_cpu_ratio',
  ],
  async run() {
    // The headline ratios: the outside harness's method and traffic against Errand's real entry point.
    const outside = await discordLikeOutside();
    const model = await startFakeOpenAI();
    try {
      const sample = await overhead(model, false);
      const streamed = await overhead(model, true);
      // The previous method, kept beside them: Errand composed in process, a bare bot that also starts a thread.
      const previous = overheadFigures(
        'discord_sequential',
        'bare discord.js bot',
        sample,
        'each bot in its own process on its own fake Discord, every bot post and thread start echoed back',
        streamed,
      );
      return [
        ...outside,
        ...previous.map((f) =>
          f.name.startsWith('discord_sequential_streaming')
            ? { ...f, name: f.name.replace('discord_sequential_streaming', 'discord_streaming') }
            : f,
        ),
      ];
    } finally {
      await model.close();
    }
  },
};
