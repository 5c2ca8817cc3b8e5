import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createDiscordAdapter,
  discordOptionsFromConfig,
  type DiscordTuning,
} from '../../adapters/discord/create-discord-adapter.js';
import { createApp, type App, type ManagedToolSource } from '../../src/app.js';
import type { ChatAdapter } from '../../src/chat/chat-adapter.js';
import type { InboundSink } from '../../src/chat/inbound.js';
import type { WorkspaceInputs } from '../../src/attachments/workspace-ports.js';
import type { SurfaceSink } from '../../src/chat/surface-sink.js';
import { loadConfig, type Config } from '../../src/config.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai.js';
import { RecordingSink } from '../contract/chat-adapter-contract.js';
import { waitFor } from '../fakes/wait-for.js';
import {
  FAKE_DISCORD_TOKEN,
  startFakeDiscord,
  type FakeDiscord,
  type FakeDiscordOptions,
} from '../fakes/fake-discord.js';

export interface DiscordHarness {
  fake: FakeDiscord;
  adapter: ChatAdapter;
  sink: RecordingSink;
  close(): Promise<void>;
}

/** Timings short enough for tests; the fake enforces the same message window. */
export const TEST_TUNING: DiscordTuning = {
  messageLimit: { count: 5, windowMs: 400 },
  restRetries: 0,
  workingNoticeDelayMs: 60,
  typingIntervalMs: 80,
  typingDelayMs: 0,
  deferAfterMs: 100,
  readyTimeoutMs: 5000,
  // An answer's last edit waits for the stream interval (1.5 s in production): tests need not wait that long.
  // The streaming tests keep the production interval (PRODUCTION_STREAMING).
  streamIntervalMs: 100,
};

/** Tuning that restores the production stream interval, for the tests that measure it. */
export const PRODUCTION_STREAMING: DiscordTuning = { streamIntervalMs: undefined };

export interface HarnessOptions {
  threads?: boolean;
  /** Register commands per guild (default) or globally (false). */
  perGuild?: boolean;
  fake?: FakeDiscordOptions;
  tuning?: DiscordTuning;
  sink?: InboundSink;
  /** Where the schedule form goes (absent: forms are refused). */
  surfaces?: SurfaceSink;
}

/** Creates a discord.js-backed adapter for a (new or given) fake Discord. */
export function makeAdapter(fake: FakeDiscord, options: HarnessOptions = {}): ChatAdapter {
  return createDiscordAdapter({
    token: FAKE_DISCORD_TOKEN,
    apiUrl: fake.apiUrl,
    threads: options.threads ?? true,
    ...(options.perGuild === false ? {} : { guildId: fake.guildId }),
    tuning: { ...TEST_TUNING, ...options.tuning },
  });
}

/** The real discord.js client, started against a fresh fake Discord, delivering to a recording sink. */
export async function startDiscordHarness(options: HarnessOptions = {}): Promise<DiscordHarness> {
  const fake = await startFakeDiscord({ messageLimit: TEST_TUNING.messageLimit, ...options.fake });
  const sink = new RecordingSink();
  const adapter = makeAdapter(fake, options);
  try {
    await adapter.start(options.sink ?? sink, options.surfaces);
  } catch (err) {
    await fake.close();
    throw err;
  }
  return {
    fake,
    adapter,
    sink,
    async close() {
      await adapter.stop();
      await fake.close();
    },
  };
}

/** Polls until `check` yields a value and returns it (waitFor, typed without the falsy cases). */
export async function until<T>(check: () => T | undefined | null | false, timeoutMs = 5000): Promise<NonNullable<T>> {
  return (await waitFor(check, timeoutMs)) as NonNullable<T>;
}

export interface DiscordErrand {
  app: App;
  clock: FakeClock;
  discord: FakeDiscord;
  model: FakeOpenAI;
  close(): Promise<void>;
}

/** What a Discord test runs against: a fake model, a fake Discord, a database folder, and the config pointing at them. */
export interface DiscordWorld {
  readonly dir: string;
  readonly model: FakeOpenAI;
  readonly discord: FakeDiscord;
  readonly config: Config;
  /** Closes both fakes and deletes the folder. */
  close(): Promise<void>;
}

/** Starts the fakes and builds the environment-only config Errand would read, plus `env`. */
export async function startDiscordWorld(
  env: Record<string, string> | ((discord: FakeDiscord) => Record<string, string>) = {},
): Promise<DiscordWorld> {
  const dir = mkdtempSync(join(tmpdir(), 'errand-discord-'));
  const model = await startFakeOpenAI();
  const discord = await startFakeDiscord({ messageLimit: TEST_TUNING.messageLimit });
  const config = loadConfig({
    OPENAI_BASE_URL: model.baseUrl,
    OPENAI_API_KEY: 'test-key',
    DATABASE_PATH: join(dir, 'errand.db'),
    DISCORD_TOKEN: FAKE_DISCORD_TOKEN,
    DISCORD_API_URL: discord.apiUrl,
    DISCORD_GUILD_ID: discord.guildId,
    ...(typeof env === 'function' ? env(discord) : env),
  });
  return {
    dir,
    model,
    discord,
    config,
    async close() {
      await discord.close();
      await model.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Errand for real: the runtime, SQLite, the openai SDK on a fake model, discord.js on a fake Discord. */
export async function startDiscordErrand(
  env: Record<string, string> | ((discord: FakeDiscord) => Record<string, string>) = {},
  options: { externalTools?: ManagedToolSource; tuning?: DiscordTuning; workspaceInputs?: WorkspaceInputs } = {},
): Promise<DiscordErrand> {
  const world = await startDiscordWorld(env);
  const { config, discord, model } = world;
  const adapter = createDiscordAdapter({
    ...discordOptionsFromConfig(config),
    tuning: { ...TEST_TUNING, ...options.tuning },
  });
  const clock = new FakeClock();
  const app = await createApp({
    config,
    adapters: [adapter],
    clock,
    modelBackoffMs: () => 5,
    ...(options.externalTools ? { externalTools: options.externalTools } : {}),
    ...(options.workspaceInputs ? { workspaceInputs: options.workspaceInputs } : {}),
  });
  await app.start();
  return {
    app,
    clock,
    discord,
    model,
    async close() {
      await app.stop();
      await world.close();
    },
  };
}

/** The files the bot attached to its messages in a channel or thread, oldest first, with the type they were sent as. */
export function attachedFiles(
  fake: FakeDiscord,
  channelId: string,
): { name: string; bytes: Uint8Array; mimeType?: string }[] {
  return fake.botMessagesIn(channelId).flatMap((m) =>
    (m.attachments ?? []).map((a) => ({
      name: a.name,
      bytes: a.bytes,
      ...(a.contentType ? { mimeType: a.contentType } : {}),
    })),
  );
}
