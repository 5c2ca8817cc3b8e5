import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client, Events, GatewayIntentBits, Partials } from 'discord.js';
import { createDiscordAdapter, discordOptionsFromConfig } from '../adapters/discord/create-discord-adapter.js';
import { createOpenAiClient } from '../src/agent/llm-client.js';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { FAKE_DISCORD_TOKEN, startFakeDiscord, type FakeDiscord } from '../tests/fakes/fake-discord.js';
import { startFakeOpenAI } from '../tests/fakes/fake-openai.js';
import type { Benchmark } from './benchmark.js';

const WARMUP = 30;
const MESSAGES = 200;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}

/** Mentions the bot once and resolves with the time until its reply reached the fake, in ms. */
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

/** The baseline: a bare discord.js bot that asks the same model and answers in a new thread. */
async function bareBot(fake: FakeDiscord, modelUrl: string): Promise<number[]> {
  const llm = createOpenAiClient({ apiKey: 'bench', baseUrl: modelUrl, model: 'bench', timeoutMs: 10_000 });
  const client = new Client({
    intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent, GatewayIntentBits.DirectMessages],
    partials: [Partials.Channel],
    rest: { api: fake.apiUrl },
  });
  client.on(Events.MessageCreate, (message) => {
    if (message.author.bot || !client.user || !message.mentions.users.has(client.user.id)) return;
    void (async () => {
      const r = await llm.complete({ messages: [{ role: 'system', content: 'sys' }, { role: 'user', content: message.content }], tools: [], signal: new AbortController().signal });
      const thread = await message.startThread({ name: 'reply' });
      await thread.send(r.text ?? 'ok');
    })();
  });
  const ready = new Promise((r) => client.once(Events.ClientReady, r));
  await client.login(FAKE_DISCORD_TOKEN);
  await ready;
  const times: number[] = [];
  for (let i = 0; i < WARMUP + MESSAGES; i++) {
    const ms = await mentionAndTime(fake, i);
    if (i >= WARMUP) times.push(ms);
  }
  await client.destroy();
  return times;
}

/**
 * Mention → reply latency of Errand on Discord (dedupe, thread, persistence, agent loop, queue)
 * against a bare discord.js bot doing the same platform work (model call, thread, reply), both with
 * the real discord.js on the same fake Discord and the real openai SDK on a zero-latency fake model.
 */
export const benchmark: Benchmark = {
  name: 'discord',
  figures: ['discord_overhead_ratio'],
  async run() {
    const model = await startFakeOpenAI();
    const fake = await startFakeDiscord();
    const dir = mkdtempSync(join(tmpdir(), 'errand-bench-discord-'));
    try {
      const bare = await bareBot(fake, model.baseUrl);
      const config = loadConfig({
        OPENAI_BASE_URL: model.baseUrl,
        OPENAI_API_KEY: 'bench',
        DATABASE_PATH: join(dir, 'errand.db'),
        DISCORD_TOKEN: FAKE_DISCORD_TOKEN,
        DISCORD_API_URL: fake.apiUrl,
        DISCORD_GUILD_ID: fake.guildId,
      });
      const app = createApp({ config, adapters: [createDiscordAdapter(discordOptionsFromConfig(config))] });
      await app.start();
      const errand: number[] = [];
      for (let i = 0; i < WARMUP + MESSAGES; i++) {
        const ms = await mentionAndTime(fake, i);
        if (i >= WARMUP) errand.push(ms);
        await app.coordinator.idle();
      }
      await app.stop();
      const b = median(bare);
      const e = median(errand);
      return [
        {
          name: 'discord_overhead_ratio',
          value: e / b,
          unit: 'x',
          detail: `median mention → reply: Errand ${e.toFixed(2)} ms vs bare discord.js bot ${b.toFixed(2)} ms, ${MESSAGES} mentions each`,
        },
      ];
    } finally {
      await fake.close();
      await model.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
