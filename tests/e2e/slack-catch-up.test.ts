import { afterEach, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../fakes/fake-openai.js';
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

/** The text of the last user message the model was shown. */
const lastUserText = (r: RecordedRequest) => String(r.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '');

describe.each(['http', 'socket'] as const)('Slack catch-up after a restart (%s mode)', (mode) => {
  it('a thread reply sent while Errand was down, never redelivered, is answered once after the restart', async () => {
    e = await startRestartableSlackErrand({ mode });
    const { slack: s, model } = e;
    if (mode === 'socket') await waitFor(() => s.socketCount() > 0, 10_000, 'the Socket Mode connection');
    model.reply({ hang: true });
    const { ts } = await s.mention({ user: ALICE, channel: CHANNEL, text: 'draft the release notes' });
    await waitFor(() => model.hanging() === 1, 10_000, 'the model request');
    await e.stop();

    s.postUndelivered({ user: ALICE, channel: CHANNEL, text: 'also list the breaking changes', threadTs: ts });
    s.postUndelivered({ user: ALICE, channel: 'C0RANDOM1', text: 'unrelated chatter elsewhere' });
    model.respondWith((r) => ({ text: lastUserText(r).includes('breaking changes') ? 'Breaking changes listed.' : 'Release notes drafted.' }));
    await e.start();
    await waitFor(() => texts(s, ts).includes('Breaking changes listed.'), 20_000, 'the answer to the missed reply');
    await e.app().coordinator.idle();
    expect(texts(s, ts).filter((t) => t === 'Breaking changes listed.')).toHaveLength(1);
    expect(model.requests.filter((r) => lastUserText(r).includes('breaking changes'))).toHaveLength(1);
  });
});

describe('Slack catch-up of a waiting question', () => {
  it('an answer typed while Errand was down resumes the waiting run', async () => {
    e = await startRestartableSlackErrand();
    const { slack: s, model } = e;
    model.reply({ toolCalls: [{ name: 'ask_user', arguments: { question: 'Which format?' } }] });
    const { ts } = await s.mention({ user: ALICE, channel: CHANNEL, text: 'export the report' });
    await waitFor(() => texts(s, ts).some((t) => t.includes('Which format?')), 10_000, 'the question');
    await e.app().coordinator.idle();
    await e.stop();

    s.postUndelivered({ user: ALICE, channel: CHANNEL, text: 'PDF please', threadTs: ts });
    model.reply({ text: 'Exported as PDF.' });
    await e.start();
    await waitFor(() => texts(s, ts).includes('Exported as PDF.'), 20_000, 'the resumed run');
    const resumed = model.requests.at(-1)!;
    expect(JSON.stringify(resumed.messages.filter((m) => m.role === 'tool'))).toContain('PDF please');
    expect(await e.app().tasks.list(`slack:${s.teamId}:${CHANNEL}:${ts}`)).toHaveLength(1);
  });
});
