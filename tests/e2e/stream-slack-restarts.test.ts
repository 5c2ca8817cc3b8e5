import { describe, expect, it } from 'vitest';
import { FakeSlack } from '../fakes/fake-slack.js';
import { waitFor } from '../fakes/wait-for.js';
import { startOnSlack } from './kits/restart-context.js';
import { ANSWER, everyStep, stepsIn, useStreamRestarts } from './kits/stream-restart-kit.js';

/** Slack: a SIGKILL while an answer streams (see kits/stream-restart-kit.ts). */
const ctx = useStreamRestarts();

describe('a SIGKILL while the answer streams', () => {
  it('Slack: the partial native stream is deleted after the restart and the answer is in the thread once', async () => {
    const slack = await FakeSlack.start({ rateLimit: null });
    try {
      const start = () => startOnSlack(ctx, slack);
      await start();
      const { ts } = await slack.mention({ user: 'U0ALICE01', channel: 'C0GENERAL1', text: 'explain it step by step' });
      // An append means the stream was started and recorded.
      await waitFor(() => slack.callsOf('chat.appendStream').length > 0, 30_000, 'the stream to be appended to');
      const streamTs = String(slack.callsOf('chat.appendStream')[0]!.args.ts);
      await ctx.errand!.kill();
      await waitFor(() => slack.socketCount() === 0, 10_000, 'the socket to close');
      expect(
        stepsIn(slack.botTexts('C0GENERAL1', ts)).length,
        'the kill lands before the answer is complete',
      ).toBeLessThan(12);

      ctx.model.streamPace({ chunkDelayMs: 0 });
      await start();
      await waitFor(
        () => stepsIn(slack.botTexts('C0GENERAL1', ts)).length >= 12,
        60_000,
        'the answer after the restart',
      );
      await waitFor(
        () => slack.callsOf('chat.delete').some((c) => c.args.ts === streamTs),
        30_000,
        'the preview to be deleted',
      );
      const texts = slack.botTexts('C0GENERAL1', ts);
      expect(stepsIn(texts), `${JSON.stringify(texts)}\n${ctx.errand!.output()}`).toEqual(everyStep);
    } finally {
      await ctx.errand?.kill();
      await slack.close();
    }
  }, 120_000);
});

describe('a SIGKILL while the answer streams under a task card', () => {
  it('Slack: the message with the card is taken back after the restart, so no card is left spinning, and the answer is in the thread once', async () => {
    const slack = await FakeSlack.start({ rateLimit: null });
    // The model reads the thread first (a task card opens the stream), then writes the answer under it.
    ctx.model.respondWith((req) =>
      req.messages.some((m) => m.role === 'tool')
        ? { text: ANSWER }
        : { toolCalls: [{ name: 'read_thread', arguments: {} }] },
    );
    try {
      const start = () => startOnSlack(ctx, slack);
      await start();
      const { ts } = await slack.mention({ user: 'U0ALICE01', channel: 'C0GENERAL1', text: 'explain it step by step' });
      await waitFor(
        () =>
          slack
            .callsOf('chat.appendStream')
            .some((c) => String(c.args.markdown_text ?? c.args.chunks ?? '').includes('Step')),
        30_000,
        'the answer streaming under the card',
      );
      const card = slack.messages('C0GENERAL1', ts).find((m) => m.tasks !== undefined)!;
      expect(card.streaming).toBe(true);
      await ctx.errand!.kill();
      await waitFor(() => slack.socketCount() === 0, 10_000, 'the socket to close');

      ctx.model.streamPace({ chunkDelayMs: 0 });
      await start();
      await waitFor(
        () => stepsIn(slack.botTexts('C0GENERAL1', ts)).length >= 12,
        60_000,
        'the answer after the restart',
      );
      await waitFor(
        () => slack.callsOf('chat.delete').some((c) => c.args.ts === card.ts),
        30_000,
        'the message with the card to be taken back',
      );
      const texts = slack.botTexts('C0GENERAL1', ts);
      expect(stepsIn(texts), `${JSON.stringify(texts)}\n${ctx.errand!.output()}`).toEqual(everyStep);
      expect(slack.messages('C0GENERAL1', ts).filter((m) => m.ts === card.ts)).toEqual([]);
    } finally {
      await ctx.errand?.kill();
      await slack.close();
    }
  }, 120_000);
});

describe('a SIGKILL after the platform stored the first preview message but before Errand heard back', () => {
  it('Slack: the started stream no outbox row owns is found in the thread and deleted; the answer is in the thread once', async () => {
    const slack = await FakeSlack.start({ rateLimit: null });
    try {
      const start = () => startOnSlack(ctx, slack);
      await start();
      slack.holdAnswers('chat.startStream');
      const { ts } = await slack.mention({ user: 'U0ALICE01', channel: 'C0GENERAL1', text: 'explain it step by step' });
      await waitFor(() => slack.heldAnswers() > 0, 30_000, 'the stream started, its answer held');
      const orphan = slack.messages('C0GENERAL1', ts).find((m) => m.streaming)!;
      expect(orphan, 'Slack stored the streamed message').toBeDefined();
      await ctx.errand!.kill();
      await waitFor(() => slack.socketCount() === 0, 10_000, 'the socket to close');
      slack.releaseAnswers();

      ctx.model.streamPace({ chunkDelayMs: 0 });
      await start();
      await waitFor(
        () => stepsIn(slack.botTexts('C0GENERAL1', ts)).length >= 12,
        60_000,
        'the answer after the restart',
      );
      await waitFor(
        () => slack.callsOf('chat.delete').some((c) => c.args.ts === orphan.ts),
        30_000,
        'the unrecorded stream to be deleted',
      );
      const texts = slack.botTexts('C0GENERAL1', ts);
      expect(stepsIn(texts), `${JSON.stringify(texts)}\n${ctx.errand!.output()}`).toEqual(everyStep);
    } finally {
      await ctx.errand?.kill();
      await slack.close();
    }
  }, 120_000);
});
