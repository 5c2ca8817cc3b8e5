import { afterEach, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../fakes/fake-openai.js';
import { waitFor } from '../fakes/wait-for.js';
import { startErrand, texts, type Errand } from './slack-harness.js';
import { errandFileEnv } from '../fixtures/errand-file.js';

const CHANNEL = 'C0GENERAL';
const ALICE = 'U0ALICE01';
/** A real 1×1 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

/** These tests are about reading files for the model: without the sandbox, whose workspace would also take them as data (see slack-files.test.ts). */
const NO_SANDBOX = () => errandFileEnv({ sandbox: { enabled: false } });

let e: Errand | null = null;
afterEach(async () => {
  await e?.close();
  e = null;
});

type Part = { type: string; text?: string; image_url?: { url: string } };
/** The user messages of a request whose content is a list of parts (text + images). */
const partsOf = (req: RecordedRequest): Part[][] =>
  req.messages.filter((m) => m.role === 'user' && Array.isArray(m.content)).map((m) => m.content as Part[]);
const userText = (req: RecordedRequest): string =>
  req.messages
    .filter((m) => m.role === 'user')
    .map((m) =>
      Array.isArray(m.content) ? (m.content as Part[]).map((p) => p.text ?? '').join('') : String(m.content),
    )
    .join('\n');

describe('Slack attachments, end to end', () => {
  it('an image reaches the model as an image part and a text file as text under its name, both downloaded with the bot token', async () => {
    e = await startErrand({ env: NO_SANDBOX() });
    const { slack: s, model } = e;
    model.reply({ text: 'A single pixel, and your notes.' }, { text: 'Still one pixel.' });
    const { ts } = await s.mention({
      user: ALICE,
      channel: CHANNEL,
      text: 'what is in these?',
      files: [
        { name: 'pixel.png', mimetype: 'image/png', bytes: PNG },
        { name: 'notes.md', mimetype: 'text/plain', filetype: 'markdown', bytes: Buffer.from('# Plan\n- ship it\n') },
      ],
    });
    await waitFor(() => texts(s, ts).includes('A single pixel, and your notes.'), 10_000);

    const [parts] = partsOf(model.requests[0]!);
    expect(parts).toEqual([
      { type: 'text', text: expect.stringContaining('what is in these?') },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG.toString('base64')}` } },
    ]);
    expect(parts![0]!.text).toContain('📎 notes.md:\n```md\n# Plan\n- ship it\n```');
    expect(parts![0]!.text).toContain('📎 pixel.png (image, attached)');
    expect(s.fileDownloads.map((d) => [d.token, d.status])).toEqual([
      ['xoxb-test-token', 200],
      ['xoxb-test-token', 200],
    ]);
    expect(texts(s, ts)).toEqual(['A single pixel, and your notes.']);

    // Stored with the transcript: a follow-up in the thread still shows the model the image.
    await e.app.coordinator.idle();
    await s.userMessage({ user: ALICE, channel: CHANNEL, text: 'and now?', threadTs: ts });
    await waitFor(() => texts(s, ts).includes('Still one pixel.'), 10_000);
    expect(partsOf(model.requests[1]!)[0]).toContainEqual({
      type: 'image_url',
      image_url: { url: `data:image/png;base64,${PNG.toString('base64')}` },
    });
    expect(s.fileDownloads).toHaveLength(2);
  });

  it('an unsupported file gets a note in the thread saying it was not read and why, and the model is told it was there', async () => {
    e = await startErrand({ env: NO_SANDBOX() });
    const { slack: s, model } = e;
    model.reply({ text: 'I can only see your words.' });
    const { ts } = await s.mention({
      user: ALICE,
      channel: CHANNEL,
      text: 'summarise this',
      files: [{ name: 'report.pdf', mimetype: 'application/pdf', bytes: Buffer.from('%PDF-1.7 …') }],
    });
    await waitFor(() => texts(s, ts).includes('I can only see your words.'), 10_000);
    expect(texts(s, ts)).toEqual([
      "I couldn't read report.pdf: PDF files aren't supported yet.",
      'I can only see your words.',
    ]);
    expect(userText(model.requests[0]!)).toContain("📎 report.pdf: [not read: PDF files aren't supported yet]");
    expect(partsOf(model.requests[0]!)).toEqual([]);
    expect(s.fileDownloads).toEqual([]);
  });

  it('with OPENAI_VISION=false an image is not sent: the thread is told and the model reads that it was omitted', async () => {
    e = await startErrand({ env: { OPENAI_VISION: 'false', ...NO_SANDBOX() } });
    const { slack: s, model } = e;
    model.reply({ text: 'Noted.' });
    const { ts } = await s.mention({
      user: ALICE,
      channel: CHANNEL,
      text: 'look',
      files: [{ name: 'chart.png', mimetype: 'image/png', bytes: PNG }],
    });
    await waitFor(() => texts(s, ts).includes('Noted.'), 10_000);
    expect(texts(s, ts)[0]).toBe("I didn't look at chart.png: reading images is turned off here.");
    expect(userText(model.requests[0]!)).toContain('📎 chart.png: [image omitted: vision is off]');
    expect(partsOf(model.requests[0]!)).toEqual([]);
  });

  it('the fake refuses a file download without the bot token, as Slack does, by sending it to sign in', async () => {
    e = await startErrand({ env: NO_SANDBOX() });
    const { slack: s, model } = e;
    model.reply({ text: 'ok' });
    await s.mention({
      user: ALICE,
      channel: CHANNEL,
      text: 'x',
      files: [{ name: 'a.txt', mimetype: 'text/plain', bytes: Buffer.from('secret') }],
    });
    const url = String((s.deliveries[0]!.event.files as { url_private: string }[])[0]!.url_private);
    const anonymous = await fetch(url, { redirect: 'manual' });
    expect(anonymous.status).toBe(302);
    expect(anonymous.headers.get('location')).toContain('/signin');
    const withToken = await fetch(url, { headers: { authorization: 'Bearer xoxb-test-token' } });
    expect(await withToken.text()).toBe('secret');
  });
});
