import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDiscordAdapter, discordOptionsFromConfig } from '../adapters/discord/create-discord-adapter.js';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { FakeClock } from '../tests/fakes/fake-clock.js';
import { FAKE_DISCORD_TOKEN, startFakeDiscord } from '../tests/fakes/fake-discord.js';
import { startFakeOpenAI, type FakeOpenAI } from '../tests/fakes/fake-openai.js';
import { waitFor } from '../tests/fakes/wait-for.js';
import { startErrand } from '../tests/e2e/slack-harness.js';
import type { Benchmark } from './benchmark.js';
import { median } from './overhead-figures.js';

const RUNS = 3;
/** About 1 200 characters, written by the model in 8-character chunks every 10 ms (≈ 800 characters a second). */
const ANSWER = Array.from(
  { length: 12 },
  (_, i) =>
    `Line ${String(i + 1).padStart(2, '0')}: the answer shows while the model is still writing it, piece by piece.`,
).join('\n');
const PACE = { chunkChars: 8, chunkDelayMs: 10 };

interface Sample {
  firstTextMs: number;
  callsPer1000: number;
}

const firstToken = (model: FakeOpenAI) =>
  model.requests.find((r) => r.firstTokenAt !== null)?.firstTokenAt ?? Number.NaN;

/** Whether a Slack call carries the answer's first line (as `markdown_text`, in a `markdown_text` chunk, or in a post or edit). */
const carriesAnswer = (args: Record<string, unknown>) =>
  [args.markdown_text, args.chunks, args.text].some((v) => String(v ?? '').includes('Line 01'));

/**
 * One streamed answer on Slack: `native`, `fallback` (streaming refused: chat.update), or `cards` (native, after
 * one tool call whose task card opened the stream: the answer's text continues under it).
 */
async function slackOnce(variant: 'native' | 'fallback' | 'cards'): Promise<Sample> {
  const e = await startErrand();
  try {
    if (variant === 'fallback') e.slack.refuseStreaming('not_allowed_token_type');
    e.model.streamPace(PACE);
    if (variant === 'cards')
      e.model.reply({ toolCalls: [{ id: 'call_read', name: 'read_thread', arguments: '{}' }] }, { text: ANSWER });
    else e.model.reply({ text: ANSWER });
    const { ts } = await e.slack.mention({ user: 'U0ALICE01', channel: 'C0GENERAL', text: 'stream please' });
    await waitFor(
      () =>
        e.slack.messages('C0GENERAL', ts).some((m) => m.text.includes('Line 12')) && e.app.coordinator.inFlight === 0,
      60_000,
      'the answer',
    );
    await e.app.coordinator.idle();
    const streamCall = (method: string) => method.startsWith('chat.') && method.endsWith('Stream');
    const answerCalls = e.slack.calls.filter(
      (c) =>
        (streamCall(c.method) || c.method === 'chat.update' || c.method === 'chat.postMessage') &&
        carriesAnswer(c.args),
    );
    const first = answerCalls[0]!.at;
    // The answer's own calls: from the first carrying its text (with cards, the card calls before it are the tool's).
    const calls = e.slack.calls.filter((c) => c.at >= first && (streamCall(c.method) || carriesAnswer(c.args)));
    // The first token of text starts the clock (with cards: of the second request; the first only called the tool).
    return { firstTextMs: first - firstToken(e.model), callsPer1000: calls.length / (ANSWER.length / 1000) };
  } finally {
    await e.close();
  }
}

async function discordOnce(): Promise<Sample> {
  const dir = mkdtempSync(join(tmpdir(), 'errand-bench-stream-'));
  const model = await startFakeOpenAI();
  const discord = await startFakeDiscord();
  const config = loadConfig({
    OPENAI_BASE_URL: model.baseUrl,
    OPENAI_API_KEY: 'k',
    DATABASE_PATH: join(dir, 'errand.db'),
    DISCORD_TOKEN: FAKE_DISCORD_TOKEN,
    DISCORD_API_URL: discord.apiUrl,
    DISCORD_GUILD_ID: discord.guildId,
  });
  const app = await createApp({
    config,
    adapters: [
      createDiscordAdapter({ ...discordOptionsFromConfig(config), tuning: { restRetries: 0, readyTimeoutMs: 5000 } }),
    ],
    clock: new FakeClock(),
  });
  try {
    await app.start();
    model.streamPace(PACE);
    model.reply({ text: ANSWER });
    const msg = discord.userMessage(discord.general.id, `<@${discord.bot.id}> stream please`);
    await waitFor(() => discord.botMessagesIn(msg.id).some((m) => m.content === ANSWER), 60_000, 'the answer');
    await app.coordinator.idle();
    const id = discord.botMessagesIn(msg.id).find((m) => m.content === ANSWER)!.id;
    const calls = discord.calls.filter(
      (c) =>
        (c.method === 'PATCH' && c.path.endsWith(`/messages/${id}`)) ||
        (c.method === 'POST' &&
          c.path === `/channels/${msg.id}/messages` &&
          String((c.body as { content?: string }).content).startsWith('Line 01')),
    );
    return { firstTextMs: calls[0]!.at - firstToken(model), callsPer1000: calls.length / (ANSWER.length / 1000) };
  } finally {
    await app.stop();
    await discord.close();
    await model.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function medianOf(run: () => Promise<Sample>): Promise<Sample> {
  const samples: Sample[] = [];
  for (let i = 0; i < RUNS; i++) samples.push(await run());
  return {
    firstTextMs: median(samples.map((s) => s.firstTextMs)),
    callsPer1000: median(samples.map((s) => s.callsPer1000)),
  };
}

/**
 * Streamed answers on the fake platforms with the real libraries: from the fake model's first token
 * to the first visible text on the platform (Slack's native stream, the same after a tool call whose
 * task card opened it, Slack's chat.update fallback, Discord's edited message), and how many platform calls 1 000 streamed characters cost there.
 * The model writes about 800 characters a second; the figures are medians of three runs.
 */
export const benchmark: Benchmark = {
  name: 'stream',
  figures: ['stream_first_text_ms', 'stream_platform_calls_per_1000_chars'],
  async run() {
    const slack = await medianOf(() => slackOnce('native'));
    const cards = await medianOf(() => slackOnce('cards'));
    const fallback = await medianOf(() => slackOnce('fallback'));
    const discord = await medianOf(discordOnce);
    const all = {
      'slack native': slack,
      'slack native after a task card': cards,
      'slack chat.update': fallback,
      discord,
    };
    const detail = (pick: (s: Sample) => number, unit: string) =>
      Object.entries(all)
        .map(([k, s]) => `${k} ${pick(s).toFixed(1)} ${unit}`)
        .join(', ');
    return [
      {
        name: 'stream_first_text_ms',
        value: Math.max(...Object.values(all).map((s) => s.firstTextMs)),
        unit: 'ms',
        detail: `worst of: ${detail((s) => s.firstTextMs, 'ms')}`,
      },
      {
        name: 'stream_platform_calls_per_1000_chars',
        value: Math.max(...Object.values(all).map((s) => s.callsPer1000)),
        unit: 'calls',
        detail: `worst of: ${detail((s) => s.callsPer1000, 'calls')}`,
      },
    ];
  },
};
