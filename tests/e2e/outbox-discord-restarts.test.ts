import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeDiscord, type FakeDiscord } from '../fakes/fake-discord.js';
import { waitFor } from '../fakes/wait-for.js';
import { makeAdapter } from './discord-harness.js';
import { startOnDiscord } from './kits/restart-context.js';
import {
  everyParagraph,
  longAnswer,
  paragraphsIn,
  updateThenAnswer,
  useOutboxRestarts,
  writesOnce,
} from './kits/outbox-restart-kit.js';

/**
 * Three Discord messages of answer. The model writes it slowly the first time, so the SIGTERM (sent as soon
 * as the first piece shows) lands while the answer is still being written; the resumed run gets it at full speed.
 */
const PARAGRAPHS = 14;
/** What the outbox logs when it gives up finishing a preview at shutdown. */
const GIVEN_UP = 'shutting down before an answer preview was finished';
const ctx = useOutboxRestarts();

describe('posts survive the process stopping (Discord)', () => {
  let discord: FakeDiscord;
  beforeEach(async () => {
    discord = await startFakeDiscord();
  });
  afterEach(async () => {
    await ctx.errand?.kill();
    await discord.close();
  });

  const start = (env: NodeJS.ProcessEnv = {}) => startOnDiscord(ctx, discord, env);

  it('a SIGTERM in the middle of a long answer: after the restart every piece is in the thread exactly once, in order', async () => {
    ctx.model.respondWith(writesOnce(longAnswer(PARAGRAPHS)));
    ctx.model.streamPace({ chunkDelayMs: 20 });
    await start();
    const msg = discord.userMessage(discord.general.id, `<@${discord.bot.id}> write the long report`);
    await waitFor(
      () => paragraphsIn(discord.botMessagesIn(msg.id).map((m) => m.content)).length > 0,
      20_000,
      'the first piece',
    );
    ctx.errand!.child.kill('SIGTERM');
    expect(await ctx.errand!.exited()).toBe(0);

    ctx.model.streamPace({ chunkDelayMs: 0 });
    await start();
    await waitFor(
      () => new Set(paragraphsIn(discord.botMessagesIn(msg.id).map((m) => m.content))).size === PARAGRAPHS,
      60_000,
      'every piece of the answer',
    );
    const seen = paragraphsIn(discord.botMessagesIn(msg.id).map((m) => m.content));
    expect(seen, ctx.errand!.output()).toEqual(everyParagraph(PARAGRAPHS));
  }, 120_000);

  it('a SIGTERM after the answer was recorded, while its preview rolls over into a new message: after the restart the answer is in the thread once', async () => {
    ctx.model.respondWith(writesOnce(longAnswer(PARAGRAPHS)));
    await start({ LOG_LEVEL: 'info' });
    const msg = discord.userMessage(discord.general.id, `<@${discord.bot.id}> write the long report`);
    await waitFor(
      () => paragraphsIn(discord.botMessagesIn(msg.id).map((m) => m.content)).length > 0,
      20_000,
      'the first piece',
    );
    // The model wrote the whole answer at once: it is recorded, and the outbox finishes it through the preview, which
    // edits its first message and then rolls over into a second. That post is stored and its answer held, so the finish
    // is still under way when the SIGTERM lands (the window in which the restart used to post the answer beside it).
    discord.holdAnswers(/^\/channels\/\d+\/messages$/, (call) => call.method === 'POST');
    await waitFor(() => discord.heldAnswers() > 0, 20_000, 'the preview rolling over into a new message');
    ctx.errand!.child.kill('SIGTERM');
    // Held until the outbox has given the finish up (it says so), or else until the process is gone.
    const exited = ctx.errand!.exited();
    let gone = false;
    void exited.then(() => (gone = true));
    await waitFor(() => gone || ctx.errand!.output().includes(GIVEN_UP), 20_000, 'the outbox giving the finish up');
    discord.releaseAnswers();
    const code = await exited;
    const firstOutput = ctx.errand!.output();

    await start();
    await waitFor(
      () => new Set(paragraphsIn(discord.botMessagesIn(msg.id).map((m) => m.content))).size === PARAGRAPHS,
      30_000,
      'every piece of the answer',
    );
    const seen = paragraphsIn(discord.botMessagesIn(msg.id).map((m) => m.content));
    expect(seen, ctx.errand!.output()).toEqual(everyParagraph(PARAGRAPHS));
    expect(code, firstOutput).toBe(0);
    // The window was hit: the SIGTERM found the recorded answer's finish under way.
    expect(firstOutput).toContain(GIVEN_UP);
  }, 60_000);

  it('a SIGKILL after Discord stored a send_update but before Errand heard back: the update is in the thread once', async () => {
    ctx.model.respondWith(updateThenAnswer);
    await start();
    discord.holdAnswers(/^\/channels\/\d+\/messages$/);
    const msg = discord.userMessage(discord.general.id, `<@${discord.bot.id}> do the thing`);
    await waitFor(
      () => discord.botMessagesIn(msg.id).some((m) => m.content === 'Halfway there.') && discord.heldAnswers() > 0,
      20_000,
      'the update stored, its answer held',
    );
    await ctx.errand!.kill();
    discord.releaseAnswers();

    await start();
    await waitFor(
      () => discord.botMessagesIn(msg.id).some((m) => m.content === 'All done.'),
      30_000,
      'the answer after the restart',
    );
    const texts = discord.botMessagesIn(msg.id).map((m) => m.content);
    expect(
      texts.filter((t) => t === 'Halfway there.'),
      JSON.stringify(texts),
    ).toHaveLength(1);
  }, 90_000);

  it('a post whose answer was lost (500 after storing) and retried by discord.js shows once', async () => {
    const adapter = makeAdapter(discord, { tuning: { restRetries: 2 } });
    await adapter.start({
      onMessage: async () => {},
      knowsConversation: async () => false,
      onCommand: async () => ({ text: '' }),
      onAction: async () => null,
    });
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
