import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeDiscord, type FakeDiscord } from '../fakes/fake-discord.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai.js';
import { FakeSlack } from '../fakes/fake-slack.js';
import { waitFor } from '../fakes/wait-for.js';
import { discordEnv, slackEnv, startErrandProcess, type ErrandProcess } from './errand-process.js';

/**
 * A process killed outright while an answer streams leaves its half-written preview on the platform.
 * After the restart that preview is taken back before the run answers again, so the thread shows the
 * answer once. The model streams slowly the first time (the kill lands mid-stream) and answers the
 * resumed run at full speed with the same text.
 */
const ANSWER = Array.from({ length: 12 }, (_, i) => `Step ${i + 1}: a streamed answer that is still being written when the process dies.`).join('\n\n');
const stepsIn = (texts: readonly string[]) => texts.flatMap((t) => [...t.matchAll(/Step (\d+):/g)].map((m) => Number(m[1])));
const everyStep = Array.from({ length: 12 }, (_, i) => i + 1);

let model: FakeOpenAI;
let dir: string;
let errand: ErrandProcess | null = null;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'errand-stream-restart-'));
  model = await startFakeOpenAI();
  model.streamPace({ chunkChars: 4, chunkDelayMs: 60 });
  model.respondWith(() => ({ text: ANSWER }));
});

afterEach(async () => {
  await errand?.kill();
  errand = null;
  await model.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a SIGKILL while the answer streams', () => {
  it('Discord: the partial preview is deleted after the restart and the answer is in the thread once', async () => {
    const discord: FakeDiscord = await startFakeDiscord();
    try {
      const start = async () => {
        const before = discord.stats.identifies;
        errand = startErrandProcess(discordEnv(discord, model, dir));
        await waitFor(() => discord.stats.identifies > before, 30_000, 'Errand to connect to the gateway');
      };
      await start();
      const msg = discord.userMessage(discord.general.id, `<@${discord.bot.id}> explain it step by step`);
      // An edit of the preview means its message was posted and recorded: the process dies in the middle of the stream.
      await waitFor(() => discord.botMessagesIn(msg.id).some((m) => stepsIn([m.content]).length > 0) && discord.callsTo('PATCH', /^\/channels\/\d+\/messages\/\d+$/).length > 0, 30_000, 'the preview to be edited');
      const preview = discord.botMessagesIn(msg.id).find((m) => stepsIn([m.content]).length > 0)!;
      expect(stepsIn([preview.content]).length, 'the kill lands before the answer is complete').toBeLessThan(12);
      await errand!.kill();

      model.streamPace({ chunkDelayMs: 0 });
      await start();
      await waitFor(() => stepsIn(discord.botMessagesIn(msg.id).map((m) => m.content)).length >= 12, 60_000, 'the answer after the restart');
      await waitFor(() => discord.callsTo('DELETE', new RegExp(`/messages/${preview.id}$`)).length > 0, 30_000, 'the preview to be deleted');
      const texts = discord.botMessagesIn(msg.id).map((m) => m.content);
      expect(stepsIn(texts), `${JSON.stringify(texts)}\n${errand!.output()}`).toEqual(everyStep);
    } finally {
      await errand?.kill();
      await discord.close();
    }
  }, 120_000);

  it('Slack: the partial native stream is deleted after the restart and the answer is in the thread once', async () => {
    const slack = await FakeSlack.start({ rateLimit: null });
    try {
      const start = async () => {
        errand = startErrandProcess(slackEnv(slack, model, dir));
        await waitFor(() => slack.socketCount() > 0, 30_000, 'Errand to open a Socket Mode connection');
      };
      await start();
      const { ts } = await slack.mention({ user: 'U0ALICE01', channel: 'C0GENERAL1', text: 'explain it step by step' });
      // An append means the stream was started and recorded.
      await waitFor(() => slack.callsOf('chat.appendStream').length > 0, 30_000, 'the stream to be appended to');
      const streamTs = String(slack.callsOf('chat.appendStream')[0]!.args.ts);
      await errand!.kill();
      await waitFor(() => slack.socketCount() === 0, 10_000, 'the socket to close');
      expect(stepsIn(slack.botTexts('C0GENERAL1', ts)).length, 'the kill lands before the answer is complete').toBeLessThan(12);

      model.streamPace({ chunkDelayMs: 0 });
      await start();
      await waitFor(() => stepsIn(slack.botTexts('C0GENERAL1', ts)).length >= 12, 60_000, 'the answer after the restart');
      await waitFor(() => slack.callsOf('chat.delete').some((c) => c.args.ts === streamTs), 30_000, 'the preview to be deleted');
      const texts = slack.botTexts('C0GENERAL1', ts);
      expect(stepsIn(texts), `${JSON.stringify(texts)}\n${errand!.output()}`).toEqual(everyStep);
    } finally {
      await errand?.kill();
      await slack.close();
    }
  }, 120_000);
});

describe('a SIGKILL while the answer streams under a task card', () => {
  it('Slack: the message with the card is taken back after the restart, so no card is left spinning, and the answer is in the thread once', async () => {
    const slack = await FakeSlack.start({ rateLimit: null });
    // The model reads the thread first (a task card opens the stream), then writes the answer under it.
    model.respondWith((req) => (req.messages.some((m) => m.role === 'tool') ? { text: ANSWER } : { toolCalls: [{ name: 'read_thread', arguments: {} }] }));
    try {
      const start = async () => {
        errand = startErrandProcess(slackEnv(slack, model, dir));
        await waitFor(() => slack.socketCount() > 0, 30_000, 'Errand to open a Socket Mode connection');
      };
      await start();
      const { ts } = await slack.mention({ user: 'U0ALICE01', channel: 'C0GENERAL1', text: 'explain it step by step' });
      await waitFor(() => slack.callsOf('chat.appendStream').some((c) => String(c.args.markdown_text ?? c.args.chunks ?? '').includes('Step')), 30_000, 'the answer streaming under the card');
      const card = slack.messages('C0GENERAL1', ts).find((m) => m.tasks !== undefined)!;
      expect(card.streaming).toBe(true);
      await errand!.kill();
      await waitFor(() => slack.socketCount() === 0, 10_000, 'the socket to close');

      model.streamPace({ chunkDelayMs: 0 });
      await start();
      await waitFor(() => stepsIn(slack.botTexts('C0GENERAL1', ts)).length >= 12, 60_000, 'the answer after the restart');
      await waitFor(() => slack.callsOf('chat.delete').some((c) => c.args.ts === card.ts), 30_000, 'the message with the card to be taken back');
      const texts = slack.botTexts('C0GENERAL1', ts);
      expect(stepsIn(texts), `${JSON.stringify(texts)}\n${errand!.output()}`).toEqual(everyStep);
      expect(slack.messages('C0GENERAL1', ts).filter((m) => m.ts === card.ts)).toEqual([]);
    } finally {
      await errand?.kill();
      await slack.close();
    }
  }, 120_000);
});

describe('a SIGKILL after the platform stored the first preview message but before Errand heard back', () => {
  it('Discord: the preview posted again with its nonce returns the stored message, which is deleted; the answer is in the thread once', async () => {
    const discord: FakeDiscord = await startFakeDiscord();
    try {
      const start = async () => {
        const before = discord.stats.identifies;
        errand = startErrandProcess(discordEnv(discord, model, dir));
        await waitFor(() => discord.stats.identifies > before, 30_000, 'Errand to connect to the gateway');
      };
      await start();
      // The first text of the answer opens the preview: its post is the first one that starts like the answer.
      const isPreviewPost = (call: { body: unknown }) => /"content":"Step/.test(JSON.stringify(call.body));
      discord.holdAnswers(/^\/channels\/\d+\/messages$/, isPreviewPost);
      const msg = discord.userMessage(discord.general.id, `<@${discord.bot.id}> explain it step by step`);
      await waitFor(() => discord.heldAnswers() > 0, 30_000, 'the first preview post stored, its answer held');
      const orphan = discord.botMessagesIn(msg.id).find((m) => m.content.startsWith('Step'))!;
      expect(orphan, 'the platform stored the preview message').toBeDefined();
      await errand!.kill();
      discord.releaseAnswers();

      model.streamPace({ chunkDelayMs: 0 });
      await start();
      await waitFor(() => stepsIn(discord.botMessagesIn(msg.id).map((m) => m.content)).length >= 12, 60_000, 'the answer after the restart');
      await waitFor(() => discord.callsTo('DELETE', new RegExp(`/messages/${orphan.id}$`)).length > 0, 30_000, 'the unrecorded preview to be deleted');
      const texts = discord.botMessagesIn(msg.id).map((m) => m.content);
      expect(stepsIn(texts), `${JSON.stringify(texts)}\n${errand!.output()}`).toEqual(everyStep);
      expect(texts.some((t) => t.includes('(interrupted')), 'nothing of the take-back stays in the thread').toBe(false);
    } finally {
      await errand?.kill();
      await discord.close();
    }
  }, 120_000);

  it('Slack: the started stream no outbox row owns is found in the thread and deleted; the answer is in the thread once', async () => {
    const slack = await FakeSlack.start({ rateLimit: null });
    try {
      const start = async () => {
        errand = startErrandProcess(slackEnv(slack, model, dir));
        await waitFor(() => slack.socketCount() > 0, 30_000, 'Errand to open a Socket Mode connection');
      };
      await start();
      slack.holdAnswers('chat.startStream');
      const { ts } = await slack.mention({ user: 'U0ALICE01', channel: 'C0GENERAL1', text: 'explain it step by step' });
      await waitFor(() => slack.heldAnswers() > 0, 30_000, 'the stream started, its answer held');
      const orphan = slack.messages('C0GENERAL1', ts).find((m) => m.streaming)!;
      expect(orphan, 'Slack stored the streamed message').toBeDefined();
      await errand!.kill();
      await waitFor(() => slack.socketCount() === 0, 10_000, 'the socket to close');
      slack.releaseAnswers();

      model.streamPace({ chunkDelayMs: 0 });
      await start();
      await waitFor(() => stepsIn(slack.botTexts('C0GENERAL1', ts)).length >= 12, 60_000, 'the answer after the restart');
      await waitFor(() => slack.callsOf('chat.delete').some((c) => c.args.ts === orphan.ts), 30_000, 'the unrecorded stream to be deleted');
      const texts = slack.botTexts('C0GENERAL1', ts);
      expect(stepsIn(texts), `${JSON.stringify(texts)}\n${errand!.output()}`).toEqual(everyStep);
    } finally {
      await errand?.kill();
      await slack.close();
    }
  }, 120_000);
});
