import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createSlackAdapter,
  slackOptionsFromConfig,
  type SlackAdapter,
  type SlackTuning,
} from '../../adapters/slack/create-slack-adapter.js';
import { createApp, type App, type ManagedToolSource } from '../../src/app.js';
import type { InboundSink } from '../../src/chat/inbound.js';
import type { WorkspaceInputs } from '../../src/attachments/workspace-ports.js';
import type { SurfaceSink } from '../../src/chat/surface-sink.js';
import { loadConfig } from '../../src/config.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai.js';
import { FakeSlack, type FakeSlackOptions, type StoredMessage } from '../fakes/fake-slack.js';

export interface SlackHarness {
  fake: FakeSlack;
  adapter: SlackAdapter;
  close(): Promise<void>;
}

/**
 * Timings for tests: fast pacing (the fake is just as lenient), a short working-notice delay, and a short
 * stream interval (an answer's last edit waits for it: 1 s in production). The streaming tests keep the
 * production interval (PRODUCTION_STREAMING).
 */
export const FAST_TUNING: SlackTuning = {
  messageRate: { burst: 10, perSecond: 200 },
  workingReactionDelayMs: 0,
  workingNoticeDelayMs: 40,
  commandAckBudgetMs: 1000,
  webApiRetries: 0,
  socketPingTimeoutMs: 1000,
  streamIntervalMs: 20,
};

/** Tuning that restores the production stream interval, for the tests that measure it. */
export const PRODUCTION_STREAMING: SlackTuning = { streamIntervalMs: undefined };

/**
 * The real Slack adapter (real Bolt) against the fake Slack, started with `sink` in HTTP mode
 * (signed requests to the receiver on 127.0.0.1) or Socket Mode (the fake's websocket).
 */
export async function startSlackAdapter(
  sink: InboundSink,
  opts: {
    mode?: 'http' | 'socket';
    tuning?: SlackTuning;
    fake?: FakeSlackOptions;
    existingFake?: FakeSlack;
    surfaces?: SurfaceSink;
  } = {},
): Promise<SlackHarness> {
  const fake = opts.existingFake ?? (await FakeSlack.start({ rateLimit: { burst: 20, perSecond: 400 }, ...opts.fake }));
  const mode = opts.mode ?? 'http';
  const adapter = createSlackAdapter({
    botToken: 'xoxb-test-token',
    appToken: 'xapp-test-token',
    signingSecret: fake.signingSecret,
    mode,
    port: 0,
    host: '127.0.0.1',
    apiUrl: fake.apiUrl,
    tuning: { ...FAST_TUNING, ...opts.tuning },
  });
  await adapter.start(sink, opts.surfaces);
  if (mode === 'http') fake.useHttpReceiver(`http://127.0.0.1:${adapter.httpPort()}/slack/events`);
  return {
    fake,
    adapter,
    async close() {
      await adapter.stop();
      if (!opts.existingFake) await fake.close();
    },
  };
}

export interface Errand {
  app: App;
  slack: FakeSlack;
  model: FakeOpenAI;
  clock: FakeClock;
  close(): Promise<void>;
}

export interface ErrandOptions {
  /** Tools from outside Errand (an MCP hub); the app starts and closes it like main.ts does. */
  externalTools?: ManagedToolSource;
  /** More environment (e.g. ERRAND_CONFIG for access, limits and channel settings). */
  env?: Record<string, string>;
  /** Overrides of FAST_TUNING. */
  tuning?: SlackTuning;
  /** The conversations' workspaces (people's files are copied into `in/`); absent: no sandbox. */
  workspaceInputs?: WorkspaceInputs;
}

/** Errand for real: runtime, SQLite, the openai SDK on a fake model, Bolt's HTTP receiver on a fake Slack. */
export async function startErrand(options: ErrandOptions = {}): Promise<Errand> {
  const dir = mkdtempSync(join(tmpdir(), 'errand-slack-'));
  const model = await startFakeOpenAI();
  const slack = await FakeSlack.start({ rateLimit: { burst: 20, perSecond: 400 } });
  const clock = new FakeClock(Date.now());
  const config = loadConfig({
    OPENAI_BASE_URL: model.baseUrl,
    OPENAI_API_KEY: 'test-key',
    DATABASE_PATH: join(dir, 'errand.db'),
    SLACK_BOT_TOKEN: 'xoxb-test-token',
    SLACK_MODE: 'http',
    SLACK_SIGNING_SECRET: slack.signingSecret,
    SLACK_PORT: '0',
    SLACK_API_URL: slack.apiUrl,
    ...options.env,
  });
  const adapter = createSlackAdapter({
    ...slackOptionsFromConfig(config),
    host: '127.0.0.1',
    tuning: { ...FAST_TUNING, ...options.tuning },
  });
  const app = await createApp({
    config,
    adapters: [adapter],
    clock,
    modelBackoffMs: () => 5,
    ...(options.externalTools ? { externalTools: options.externalTools } : {}),
    ...(options.workspaceInputs ? { workspaceInputs: options.workspaceInputs } : {}),
  });
  try {
    await app.start();
  } catch (err) {
    // Nothing stays running when the start fails (a port taken meanwhile: the caller may start again on another).
    await app.stop().catch(() => {});
    await slack.close();
    await model.close();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  slack.useHttpReceiver(`http://127.0.0.1:${adapter.httpPort()}/slack/events`);
  return {
    app,
    slack,
    model,
    clock,
    async close() {
      await app.stop();
      await slack.close();
      await model.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The bot's texts in a thread (null: top level), without the transient working notice. */
export const texts = (s: FakeSlack, thread: string | null, channel = 'C0GENERAL') =>
  s.botTexts(channel, thread).filter((t) => !t.startsWith('⏳ Working'));

/** The buttons of a stored message. */
export function buttonsOf(message: StoredMessage): { action_id: string }[] {
  const actions = (message.blocks ?? []).find((b) => (b as { type?: string }).type === 'actions') as
    { elements: { action_id: string }[] } | undefined;
  return actions?.elements ?? [];
}

/**
 * The files the bot shared in a thread (null: top level), oldest first, as people get them: downloaded from
 * their `url_private_download` with the bot token, with the type Slack shows them as.
 */
export async function sharedFiles(
  fake: FakeSlack,
  channel: string,
  thread: string | null,
): Promise<{ name: string; bytes: Uint8Array; mimeType: string }[]> {
  const shares = fake.messages(channel, thread).filter((m) => m.user === fake.botUserId && m.subtype === 'file_share');
  const out: { name: string; bytes: Uint8Array; mimeType: string }[] = [];
  for (const file of shares.flatMap((m) => m.files ?? [])) {
    const res = await fetch(String(file.url_private_download), {
      headers: { authorization: 'Bearer xoxb-test-token' },
    });
    out.push({
      name: String(file.name),
      bytes: new Uint8Array(await res.arrayBuffer()),
      mimeType: String(file.mimetype),
    });
  }
  return out;
}
