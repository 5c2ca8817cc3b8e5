import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Events, GatewayIntentBits, Partials } from 'discord.js';
import { createDiscordAdapter, discordOptionsFromConfig } from '../adapters/discord/create-discord-adapter.js';
import OpenAI from 'openai';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { serveBotControl } from './bot-control.js';

/**
 * A benchmarked Discord bot in its own process (see bot-process.ts): `KIND=errand` is Errand as
 * `npm start` composes it (Discord adapter, pino logger at info to stdout, SQLite file),
 * `KIND=bare` the baseline: a bare discord.js bot that asks the same model through the `openai` SDK as it
 * comes (its own fetch, no wrapper) and answers in a new thread; Errand's model client is part of what is measured.
 */
const env = process.env;

async function startBare(): Promise<void> {
  const openai = new OpenAI({ apiKey: 'bench', baseURL: env.MODEL_URL!, maxRetries: 0, timeout: 10_000 });
  const client = new Client({
    intents: [
      GatewayIntentBits.Guilds,
      GatewayIntentBits.GuildMessages,
      GatewayIntentBits.MessageContent,
      GatewayIntentBits.DirectMessages,
    ],
    partials: [Partials.Channel],
    rest: { api: env.DISCORD_API_URL! },
  });
  client.on(Events.MessageCreate, (message) => {
    if (message.author.bot || !client.user || !message.mentions.users.has(client.user.id)) return;
    void (async () => {
      // BARE_REPLY=channel: as the outside harness's baseline (perf/baselines/bot.mjs), the mention alone to the model and the answer in the channel.
      // BARE_REPLY=thread: the same, but in a thread opened on the mention first, as Errand does (DISCORD_THREADS=true).
      if (env.BARE_REPLY === 'channel' || env.BARE_REPLY === 'thread') {
        const where =
          env.BARE_REPLY === 'thread'
            ? await message.startThread({ name: message.content.slice(0, 50) || 'reply', autoArchiveDuration: 1440 })
            : message.channel;
        const r = await openai.chat.completions.create({
          model: 'bench',
          messages: [{ role: 'user', content: message.content }],
        });
        await where.send(r.choices[0]?.message.content || '(empty answer)');
        return;
      }
      const r = await openai.chat.completions.create({
        model: 'bench',
        messages: [
          { role: 'system', content: 'sys' },
          { role: 'user', content: message.content },
        ],
      });
      const thread = await message.startThread({ name: 'reply' });
      await thread.send(r.choices[0]?.message.content ?? 'ok');
    })();
  });
  const ready = new Promise((r) => client.once(Events.ClientReady, r));
  await client.login(env.DISCORD_TOKEN!);
  await ready;
  serveBotControl({ idle: async () => undefined, stop: async () => void (await client.destroy()) });
}

async function startErrand(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'errand-bench-discord-bot-'));
  const config = loadConfig({
    OPENAI_BASE_URL: env.MODEL_URL,
    OPENAI_API_KEY: 'bench',
    DATABASE_PATH: join(dir, 'errand.db'),
    DISCORD_TOKEN: env.DISCORD_TOKEN,
    DISCORD_API_URL: env.DISCORD_API_URL,
    DISCORD_GUILD_ID: env.DISCORD_GUILD_ID,
    LOG_LEVEL: 'info',
    // The overhead benchmarks compare with a bare bot that does not stream: they set STREAMING=false, and print the streamed figure beside it.
    STREAMING: env.STREAMING ?? 'true',
  });
  const logger = createLogger(config.LOG_LEVEL);
  const app = await createApp({
    config,
    adapters: [createDiscordAdapter(discordOptionsFromConfig(config, logger))],
    logger,
  });
  await app.start();
  serveBotControl({
    idle: () => app.coordinator.idle(),
    stop: async () => {
      await app.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  });
}

await (env.KIND === 'bare' ? startBare() : startErrand());
