import { afterEach, describe, it } from 'vitest';
import { waitFor } from '../fakes/wait-for.js';
import { texts } from './slack-harness.js';
import { startRestartableSlackErrand, type RestartableSlackErrand } from './slack-restart-harness.js';

const CHANNEL = 'C0GENERAL';
const ALICE = 'U0ALICE01';

let e: RestartableSlackErrand | null = null;
afterEach(async () => {
  await e?.close();
  e = null;
});

describe('Slack thread membership after a restart', () => {
  it('a reply in a thread Errand already holds is answered without asking Slack, even while conversations.replies is rate limited', async () => {
    e = await startRestartableSlackErrand();
    const { slack: s, model } = e;
    model.reply({ text: 'First answer.' }, { text: 'Second answer.' });
    const { ts } = await s.mention({ user: ALICE, channel: CHANNEL, text: 'start something' });
    await waitFor(() => texts(s, ts).includes('First answer.'), 10_000, 'the first answer');
    await e.app().coordinator.idle();
    await e.stop();
    await e.start();

    for (let i = 0; i < 10; i++) s.failNext('conversations.replies', { status: 429, retryAfter: 30 });
    await s.userMessage({ user: ALICE, channel: CHANNEL, text: 'and a follow-up', threadTs: ts });
    await waitFor(() => texts(s, ts).includes('Second answer.'), 10_000, 'the follow-up answer');
  });
});
