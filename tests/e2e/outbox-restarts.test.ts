import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeDiscord, type FakeDiscord } from '../fakes/fake-discord.js';
import { startFakeOpenAI, type FakeOpenAI, type RecordedRequest } from '../fakes/fake-openai.js';
import { FakeSlack } from '../fakes/fake-slack.js';
import { waitFor } from '../fakes/wait-for.js';
import { makeAdapter } from './discord-harness.js';
import { discordEnv, slackEnv, startErrandProcess, type ErrandProcess } from './errand-process.js';

let model: FakeOpenAI;
let dir: string;
let errand: ErrandProcess | null = null;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'errand-outbox-'));
  model = await startFakeOpenAI();
});

afterEach(async () => {
  await errand?.kill();
  errand = null;
  await model.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A long answer of numbered paragraphs (`§n`), many platform messages long. */
function longAnswer(paragraphs: number): string {
  return Array.from({ length: paragraphs }, (_, i) => `§${i + 1}§ ${'All work and no play makes a long report. '.repeat(7).trim()}`).join('\n\n');
}

/**
 * A model that writes the long answer, and once its transcript holds it (the answer was recorded before the
 * stop) says it picked up again. Streamed, the stop may land before the answer is recorded: its preview is
 * removed and the resumed run writes the answer anew; either way each piece must be in the thread once.
 */
function writesOnce(text: string) {
  return (request: RecordedRequest) => ({ text: request.messages.some((m) => m.role === 'assistant' && String(m.content ?? '').includes('§1§')) ? 'Picked up again.' : text });
}

/** The paragraph numbers found in posted texts, in the order posted. */
function paragraphsIn(texts: readonly string[]): number[] {
  return texts.flatMap((t) => [...t.matchAll(/§(\d+)§/g)].map((m) => Number(m[1])));
}

/** A model that sends one progress update, then answers once the update's result says it was posted. */
function updateThenAnswer(request: RecordedRequest) {
  const posted = request.messages.some((m) => m.role === 'tool' && String(m.content).includes('"posted":true'));
  return posted ? { text: 'All done.' } : { toolCalls: [{ name: 'send_update', arguments: { text: 'Halfway there.' } }] };
}

describe('posts survive the process stopping (Discord)', () => {
  let discord: FakeDiscord;
  beforeEach(async () => {
    discord = await startFakeDiscord();
  });
  afterEach(async () => {
    await errand?.kill();
    await discord.close();
  });

  const start = async () => {
    const before = discord.stats.identifies;
    errand = startErrandProcess(discordEnv(discord, model, dir));
    await waitFor(() => discord.stats.identifies > before, 30_000, 'Errand to connect to the gateway');
  };

  it('a SIGTERM in the middle of a long answer: after the restart every piece is in the thread exactly once, in order', async () => {
    const text = longAnswer(60);
    model.respondWith(writesOnce(text));
    await start();
    const msg = discord.userMessage(discord.general.id, `<@${discord.bot.id}> write the long report`);
    await waitFor(() => paragraphsIn(discord.botMessagesIn(msg.id).map((m) => m.content)).length > 0, 20_000, 'the first piece');
    errand!.child.kill('SIGTERM');
    expect(await errand!.exited()).toBe(0);

    await start();
    await waitFor(() => new Set(paragraphsIn(discord.botMessagesIn(msg.id).map((m) => m.content))).size === 60, 60_000, 'every piece of the answer');
    const seen = paragraphsIn(discord.botMessagesIn(msg.id).map((m) => m.content));
    expect(seen, errand!.output()).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
  }, 120_000);

  it('a SIGKILL after Discord stored a send_update but before Errand heard back: the update is in the thread once', async () => {
    model.respondWith(updateThenAnswer);
    await start();
    discord.holdAnswers(/^\/channels\/\d+\/messages$/);
    const msg = discord.userMessage(discord.general.id, `<@${discord.bot.id}> do the thing`);
    await waitFor(() => discord.botMessagesIn(msg.id).some((m) => m.content === 'Halfway there.') && discord.heldAnswers() > 0, 20_000, 'the update stored, its answer held');
    await errand!.kill();
    discord.releaseAnswers();

    await start();
    await waitFor(() => discord.botMessagesIn(msg.id).some((m) => m.content === 'All done.'), 30_000, 'the answer after the restart');
    const texts = discord.botMessagesIn(msg.id).map((m) => m.content);
    expect(texts.filter((t) => t === 'Halfway there.'), JSON.stringify(texts)).toHaveLength(1);
  }, 90_000);

  it('a post whose answer was lost (500 after storing) and retried by discord.js shows once', async () => {
    const adapter = makeAdapter(discord, { tuning: { restRetries: 2 } });
    await adapter.start({ onMessage: async () => {}, knowsConversation: async () => false, onCommand: async () => ({ text: '' }), onAction: async () => null });
    try {
      discord.failAfterStoreOnce(discord.general.id);
      const ref = { platform: 'discord', workspace: discord.guildId, channel: discord.general.id, thread: null };
      const posted = await adapter.postMessage(ref, { text: 'Exactly once, please.', idempotencyKey: 'e1' });
      const mine = discord.botMessagesIn(discord.general.id).filter((m) => m.content === 'Exactly once, please.');
      expect(mine).toHaveLength(1);
      expect(posted.id).toBe(mine[0]!.id);
      expect(discord.callsTo('POST', /^\/channels\/\d+\/messages$/).length).toBeGreaterThan(1);
    } finally {
      await adapter.stop();
    }
  });
});

describe('posts survive the process stopping (Slack, Socket Mode)', () => {
  let slack: FakeSlack;
  beforeEach(async () => {
    slack = await FakeSlack.start({ rateLimit: null });
  });
  afterEach(async () => {
    await errand?.kill();
    await slack.close();
  });

  const start = async () => {
    errand = startErrandProcess(slackEnv(slack, model, dir));
    await waitFor(() => slack.socketCount() > 0, 30_000, 'Errand to open a Socket Mode connection');
  };

  it('a SIGKILL after Slack stored a send_update but before Errand heard back: the update is found by its metadata and not posted again', async () => {
    model.respondWith(updateThenAnswer);
    await start();
    slack.holdAnswers('chat.postMessage');
    const { ts } = await slack.mention({ user: 'U0ALICE01', channel: 'C0GENERAL1', text: 'do the thing' });
    await waitFor(() => slack.botTexts('C0GENERAL1', ts).includes('Halfway there.') && slack.heldAnswers() > 0, 20_000, 'the update stored, its answer held');
    await errand!.kill();
    await waitFor(() => slack.socketCount() === 0, 10_000, 'the socket to close');
    slack.releaseAnswers();

    await start();
    await waitFor(() => slack.botTexts('C0GENERAL1', ts).includes('All done.'), 30_000, 'the answer after the restart');
    const texts = slack.botTexts('C0GENERAL1', ts);
    expect(texts.filter((t) => t === 'Halfway there.'), JSON.stringify(texts)).toHaveLength(1);
    expect(slack.callsOf('conversations.replies').some((c) => c.args.include_all_metadata === 'true' || c.args.include_all_metadata === true)).toBe(true);
  }, 90_000);

  it('a SIGTERM in the middle of a long answer: after the restart every piece is in the thread exactly once, in order', async () => {
    // Errand paces Slack posts at about one a second: this answer takes longer than any shutdown waits.
    const text = longAnswer(120);
    model.respondWith(writesOnce(text));
    await start();
    const { ts } = await slack.mention({ user: 'U0ALICE01', channel: 'C0GENERAL1', text: 'write the long report' });
    await waitFor(() => paragraphsIn(slack.botTexts('C0GENERAL1', ts)).length > 0, 20_000, 'the first piece');
    errand!.child.kill('SIGTERM');
    expect(await errand!.exited()).toBe(0);

    await start();
    await waitFor(() => new Set(paragraphsIn(slack.botTexts('C0GENERAL1', ts))).size === 120, 60_000, 'every piece of the answer');
    expect(paragraphsIn(slack.botTexts('C0GENERAL1', ts)), errand!.output()).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));
  }, 120_000);
});
