import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../fakes/fake-openai.js';
import { waitFor } from '../fakes/wait-for.js';
import { errandFileEnv } from '../fixtures/errand-file.js';
import { texts } from './slack-harness.js';
import { startRestartableSlackErrand, type RestartableSlackErrand } from './slack-restart-harness.js';

const CHANNEL = 'C0GENERAL';
const ALICE = 'U0ALICE01';
const DM = 'D0ALICE01';

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
    model.respondWith((r) => ({
      text: lastUserText(r).includes('breaking changes') ? 'Breaking changes listed.' : 'Release notes drafted.',
    }));
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

/** Alice asks in her DM and the run waits for her answer (open work, so the restart catches the DM up); then Errand stops. */
async function questionInDmThenStop(e: RestartableSlackErrand): Promise<void> {
  const { slack: s, model } = e;
  model.reply({ toolCalls: [{ name: 'ask_user', arguments: { question: 'Which format?' } }] });
  await s.userMessage({ user: ALICE, channel: DM, text: 'export the report' });
  await waitFor(() => s.botTexts(DM, null).some((t) => t.includes('Which format?')), 10_000, 'the question in the DM');
  await e.app().coordinator.idle();
  await e.stop();
}

describe('Slack catch-up keeps what the live path carries (direct, files)', () => {
  it('a DM sent while Errand was down is judged as a DM: with directMessages "off" it is refused privately, not answered', async () => {
    const env = errandFileEnv({ access: { directMessages: 'open' } });
    e = await startRestartableSlackErrand({ env });
    const { slack: s, model } = e;
    await questionInDmThenStop(e);

    // The operator turns DMs off while Errand is down; Alice answers in the meantime.
    writeFileSync(env.ERRAND_CONFIG, JSON.stringify({ access: { directMessages: 'off' } }));
    s.postUndelivered({ user: ALICE, channel: DM, text: 'PDF please' });
    const asked = model.requests.length;
    await e.start();
    // Judged as a channel message, the answer would resume the run: a model request instead of a refusal.
    await waitFor(
      () => s.ephemerals.some((x) => x.user === ALICE) || model.requests.length > asked,
      10_000,
      'the refusal or an answer',
    );
    await e.app().coordinator.idle();
    expect(model.requests).toHaveLength(asked);
    expect(s.ephemerals).toEqual([
      expect.objectContaining({
        user: ALICE,
        channel: DM,
        text: expect.stringMatching(/doesn't take direct messages/),
      }),
    ]);
    expect(s.botTexts(DM, null).filter((t) => !t.includes('Which format?'))).toEqual([]);
  });

  it('with directMessages "allowlist", a listed person\'s DM caught up after a restart is answered (not refused as a channel outside `channels`)', async () => {
    e = await startRestartableSlackErrand({
      env: errandFileEnv({
        access: { directMessages: 'allowlist', users: [`slack:${ALICE}`], channels: [`slack:${CHANNEL}`] },
      }),
    });
    const { slack: s, model } = e;
    await questionInDmThenStop(e);

    s.postUndelivered({ user: ALICE, channel: DM, text: 'PDF please' });
    model.reply({ text: 'Exported as PDF.' });
    await e.start();
    await waitFor(
      () => s.botTexts(DM, null).includes('Exported as PDF.') || s.ephemerals.length > 0,
      10_000,
      'the resumed run in the DM',
    );
    expect(s.ephemerals).toEqual([]);
    expect(s.botTexts(DM, null)).toContain('Exported as PDF.');
    expect(JSON.stringify(model.requests.at(-1)!.messages.filter((m) => m.role === 'tool'))).toContain('PDF please');
  });

  it('a file on a thread reply sent while Errand was down reaches the model, downloaded with the bot token', async () => {
    e = await startRestartableSlackErrand();
    const { slack: s, model } = e;
    model.reply({ hang: true });
    const { ts } = await s.mention({ user: ALICE, channel: CHANNEL, text: 'draft the release notes' });
    await waitFor(() => model.hanging() === 1, 10_000, 'the model request');
    await e.stop();

    s.postUndelivered({
      user: ALICE,
      channel: CHANNEL,
      text: 'use these notes',
      threadTs: ts,
      files: [
        {
          name: 'notes.md',
          mimetype: 'text/plain',
          filetype: 'markdown',
          bytes: Buffer.from('- ship the aubergine feature\n'),
        },
      ],
    });
    const sawFile = (r: RecordedRequest) => JSON.stringify(r.messages).includes('ship the aubergine feature');
    model.respondWith((r) => ({
      text: lastUserText(r).includes('use these notes')
        ? sawFile(r)
          ? 'Read your notes.'
          : 'No notes seen.'
        : 'Release notes drafted.',
    }));
    await e.start();
    await waitFor(
      () => texts(s, ts).some((t) => t === 'Read your notes.' || t === 'No notes seen.'),
      10_000,
      'the answer to the missed reply',
    );
    expect(texts(s, ts)).toContain('Read your notes.');
    expect(s.fileDownloads.map((d) => [d.token, d.status])).toEqual([['xoxb-test-token', 200]]);
  });
});
