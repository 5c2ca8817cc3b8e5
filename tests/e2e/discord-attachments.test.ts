import { afterEach, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../fakes/fake-openai.js';
import type { FakeDiscord } from '../fakes/fake-discord.js';
import { waitFor } from '../fakes/wait-for.js';
import { startDiscordErrand, type DiscordErrand } from './discord-harness.js';
import { errandFileEnv } from '../fixtures/errand-file.js';

/** A real 1×1 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

/** These tests are about reading files for the model: without the sandbox, whose workspace would also take them as data (see discord-files.test.ts). */
const NO_SANDBOX = () => errandFileEnv({ sandbox: { enabled: false } });

let e: DiscordErrand | null = null;
afterEach(async () => {
  await e?.close();
  e = null;
});

type Part = { type: string; text?: string; image_url?: { url: string } };
const texts = (d: FakeDiscord, channelId: string) =>
  d
    .botMessagesIn(channelId)
    .map((m) => m.content)
    .filter((t) => !t.startsWith('⏳ Working'));
const partsOf = (req: RecordedRequest): Part[][] =>
  req.messages.filter((m) => m.role === 'user' && Array.isArray(m.content)).map((m) => m.content as Part[]);
const userText = (req: RecordedRequest): string =>
  req.messages
    .filter((m) => m.role === 'user')
    .map((m) =>
      Array.isArray(m.content) ? (m.content as Part[]).map((p) => p.text ?? '').join('') : String(m.content),
    )
    .join('\n');

describe('Discord attachments, end to end', () => {
  it('an image reaches the model as an image part; an unsupported file gets a note in the thread', async () => {
    e = await startDiscordErrand(NO_SANDBOX());
    const { discord: d, model } = e;
    model.reply({ text: 'One pixel; the archive I cannot open.' });
    const msg = d.userMessage(d.general.id, `<@${d.bot.id}> check these`, d.alice, [
      // Discord sometimes leaves content_type out: the name decides then.
      { name: 'pixel.png', bytes: PNG },
      { name: 'logs.zip', contentType: 'application/zip', bytes: Buffer.from('PK\u0003\u0004') },
    ]);
    await waitFor(() => texts(d, msg.id).includes('One pixel; the archive I cannot open.'), 10_000);
    expect(partsOf(model.requests[0]!)[0]).toEqual([
      { type: 'text', text: expect.stringContaining('check these') },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG.toString('base64')}` } },
    ]);
    expect(userText(model.requests[0]!)).toContain("📎 logs.zip: [not read: ZIP files aren't supported yet]");
    expect(texts(d, msg.id)).toEqual([
      "I couldn't read logs.zip: ZIP files aren't supported yet.",
      'One pixel; the archive I cannot open.',
    ]);
    expect(d.attachmentDownloads).toHaveLength(1);
  });

  it('a file over its size limit is not downloaded; the note names the limit', async () => {
    e = await startDiscordErrand({ ATTACHMENT_MAX_IMAGE_MB: '1', ATTACHMENT_MAX_TEXT_KB: '1', ...NO_SANDBOX() });
    const { discord: d, model } = e;
    model.reply({ text: 'Too big for me.' });
    const big = Buffer.concat([PNG, Buffer.alloc(1024 * 1024)]);
    const msg = d.userMessage(d.general.id, `<@${d.bot.id}> see`, d.alice, [
      { name: 'huge.png', contentType: 'image/png', bytes: big },
      { name: 'data.csv', contentType: 'text/csv; charset=utf-8', bytes: Buffer.from('a,b\n'.repeat(400)) },
    ]);
    await waitFor(() => texts(d, msg.id).includes('Too big for me.'), 10_000);
    expect(texts(d, msg.id)[0]).toBe(
      "I couldn't read huge.png: it is over the 1 MB limit for images.\nI couldn't read data.csv: it is over the 1 KB limit for text files.",
    );
    expect(d.attachmentDownloads).toEqual([]);
    expect(partsOf(model.requests[0]!)).toEqual([]);
  });

  it('a text file in a thread follow-up is read into the request, in a fence its own backticks cannot close', async () => {
    e = await startDiscordErrand(NO_SANDBOX());
    const { discord: d, model } = e;
    model.reply({ text: 'Started.' }, { text: 'Read it.' });
    const msg = d.userMessage(d.general.id, `<@${d.bot.id}> hello`);
    await waitFor(() => texts(d, msg.id).includes('Started.'), 10_000);
    await e.app.coordinator.idle();
    d.userMessage(msg.id, 'review this', d.alice, [
      { name: 'README.md', contentType: 'text/markdown', bytes: Buffer.from('Run:\n```sh\nnpm test\n```\n') },
    ]);
    await waitFor(() => texts(d, msg.id).includes('Read it.'), 10_000);
    expect(userText(model.requests[1]!)).toContain(
      'review this\n\n📎 README.md:\n````md\nRun:\n```sh\nnpm test\n```\n````',
    );
  });
});
