import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeSlack } from '../fakes/fake-slack.js';
import { waitFor } from '../fakes/wait-for.js';
import { startOnSlack } from './kits/restart-context.js';
import {
  everyParagraph,
  longAnswer,
  paragraphsIn,
  updateThenAnswer,
  useOutboxRestarts,
  writesOnce,
} from './kits/outbox-restart-kit.js';

/** Errand writes Slack answers at about one piece a second: this answer takes longer than any shutdown waits. */
const PARAGRAPHS = 120;
const ctx = useOutboxRestarts();

describe('posts survive the process stopping (Slack, Socket Mode)', () => {
  let slack: FakeSlack;
  beforeEach(async () => {
    slack = await FakeSlack.start({ rateLimit: null });
  });
  afterEach(async () => {
    await ctx.errand?.kill();
    await slack.close();
  });

  const start = () => startOnSlack(ctx, slack);

  it('a SIGKILL after Slack stored a send_update but before Errand heard back: the update is found by its metadata and not posted again', async () => {
    ctx.model.respondWith(updateThenAnswer);
    await start();
    slack.holdAnswers('chat.postMessage');
    const { ts } = await slack.mention({ user: 'U0ALICE01', channel: 'C0GENERAL1', text: 'do the thing' });
    await waitFor(
      () => slack.botTexts('C0GENERAL1', ts).includes('Halfway there.') && slack.heldAnswers() > 0,
      20_000,
      'the update stored, its answer held',
    );
    await ctx.errand!.kill();
    await waitFor(() => slack.socketCount() === 0, 10_000, 'the socket to close');
    slack.releaseAnswers();

    await start();
    await waitFor(() => slack.botTexts('C0GENERAL1', ts).includes('All done.'), 30_000, 'the answer after the restart');
    const texts = slack.botTexts('C0GENERAL1', ts);
    expect(
      texts.filter((t) => t === 'Halfway there.'),
      JSON.stringify(texts),
    ).toHaveLength(1);
    expect(
      slack
        .callsOf('conversations.replies')
        .some((c) => c.args.include_all_metadata === 'true' || c.args.include_all_metadata === true),
    ).toBe(true);
  }, 90_000);

  it('a SIGTERM in the middle of a long answer: after the restart every piece is in the thread exactly once, in order', async () => {
    ctx.model.respondWith(writesOnce(longAnswer(PARAGRAPHS)));
    await start();
    const { ts } = await slack.mention({ user: 'U0ALICE01', channel: 'C0GENERAL1', text: 'write the long report' });
    await waitFor(() => paragraphsIn(slack.botTexts('C0GENERAL1', ts)).length > 0, 20_000, 'the first piece');
    ctx.errand!.child.kill('SIGTERM');
    expect(await ctx.errand!.exited()).toBe(0);

    await start();
    await waitFor(
      () => new Set(paragraphsIn(slack.botTexts('C0GENERAL1', ts))).size === PARAGRAPHS,
      60_000,
      'every piece of the answer',
    );
    expect(paragraphsIn(slack.botTexts('C0GENERAL1', ts)), ctx.errand!.output()).toEqual(everyParagraph(PARAGRAPHS));
  }, 120_000);
});
