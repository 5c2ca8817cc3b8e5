import { describe, expect, it } from 'vitest';
import { startFakeDiscord, type FakeDiscord } from '../fakes/fake-discord.js';
import { waitFor } from '../fakes/wait-for.js';
import { startOnDiscord } from './kits/restart-context.js';
import { everyStep, stepsIn, useStreamRestarts } from './kits/stream-restart-kit.js';

/** Discord: a SIGKILL while an answer streams (see kits/stream-restart-kit.ts). */
const ctx = useStreamRestarts();

describe('a SIGKILL while the answer streams', () => {
  it('Discord: the partial preview is deleted after the restart and the answer is in the thread once', async () => {
    const discord: FakeDiscord = await startFakeDiscord();
    try {
      const start = () => startOnDiscord(ctx, discord);
      await start();
      const msg = discord.userMessage(discord.general.id, `<@${discord.bot.id}> explain it step by step`);
      // An edit of the preview means its message was posted and recorded: the process dies in the middle of the stream.
      await waitFor(
        () =>
          discord.botMessagesIn(msg.id).some((m) => stepsIn([m.content]).length > 0) &&
          discord.callsTo('PATCH', /^\/channels\/\d+\/messages\/\d+$/).length > 0,
        30_000,
        'the preview to be edited',
      );
      const preview = discord.botMessagesIn(msg.id).find((m) => stepsIn([m.content]).length > 0)!;
      expect(stepsIn([preview.content]).length, 'the kill lands before the answer is complete').toBeLessThan(12);
      await ctx.errand!.kill();

      ctx.model.streamPace({ chunkDelayMs: 0 });
      await start();
      await waitFor(
        () => stepsIn(discord.botMessagesIn(msg.id).map((m) => m.content)).length >= 12,
        60_000,
        'the answer after the restart',
      );
      await waitFor(
        () => discord.callsTo('DELETE', new RegExp(`/messages/${preview.id}$`)).length > 0,
        30_000,
        'the preview to be deleted',
      );
      const texts = discord.botMessagesIn(msg.id).map((m) => m.content);
      expect(stepsIn(texts), `${JSON.stringify(texts)}\n${ctx.errand!.output()}`).toEqual(everyStep);
    } finally {
      await ctx.errand?.kill();
      await discord.close();
    }
  }, 120_000);
});

describe('a SIGKILL after the platform stored the first preview message but before Errand heard back', () => {
  it('Discord: the preview posted again with its nonce returns the stored message, which is deleted; the answer is in the thread once', async () => {
    const discord: FakeDiscord = await startFakeDiscord();
    try {
      const start = () => startOnDiscord(ctx, discord);
      await start();
      // The first text of the answer opens the preview: its post is the first one that starts like the answer.
      const isPreviewPost = (call: { body: unknown }) => /"content":"Step/.test(JSON.stringify(call.body));
      discord.holdAnswers(/^\/channels\/\d+\/messages$/, isPreviewPost);
      const msg = discord.userMessage(discord.general.id, `<@${discord.bot.id}> explain it step by step`);
      await waitFor(() => discord.heldAnswers() > 0, 30_000, 'the first preview post stored, its answer held');
      const orphan = discord.botMessagesIn(msg.id).find((m) => m.content.startsWith('Step'))!;
      expect(orphan, 'the platform stored the preview message').toBeDefined();
      await ctx.errand!.kill();
      discord.releaseAnswers();

      ctx.model.streamPace({ chunkDelayMs: 0 });
      await start();
      await waitFor(
        () => stepsIn(discord.botMessagesIn(msg.id).map((m) => m.content)).length >= 12,
        60_000,
        'the answer after the restart',
      );
      await waitFor(
        () => discord.callsTo('DELETE', new RegExp(`/messages/${orphan.id}$`)).length > 0,
        30_000,
        'the unrecorded preview to be deleted',
      );
      const texts = discord.botMessagesIn(msg.id).map((m) => m.content);
      expect(stepsIn(texts), `${JSON.stringify(texts)}\n${ctx.errand!.output()}`).toEqual(everyStep);
      expect(
        texts.some((t) => t.includes('(interrupted')),
        'nothing of the take-back stays in the thread',
      ).toBe(false);
    } finally {
      await ctx.errand?.kill();
      await discord.close();
    }
  }, 120_000);
});
