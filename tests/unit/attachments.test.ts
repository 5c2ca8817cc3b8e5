import { describe, expect, it } from 'vitest';
import { classifyAttachment, sniffImageType } from '../../src/attachments/attachment-kind.js';
import { attachmentNotes, imagesOf, requestWithAttachments } from '../../src/attachments/attachment-text.js';
import { readAttachments, type AttachmentLimits } from '../../src/attachments/read-attachments.js';
import type { InboundAttachment } from '../../src/chat/inbound.js';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]);
const LIMITS: AttachmentLimits = { vision: true, maxImageMb: 5, maxTextKb: 200 };

/** An attachment whose download is counted, answering `bytes` (or failing). */
function file(
  name: string,
  mimeType: string,
  bytes: Uint8Array | Error,
  size = bytes instanceof Error ? 10 : bytes.length,
): InboundAttachment & { downloads: number } {
  const a = {
    name,
    mimeType,
    size,
    downloads: 0,
    fetch: async () => {
      a.downloads++;
      if (bytes instanceof Error) throw bytes;
      return bytes;
    },
  };
  return a;
}
const read = (list: InboundAttachment[], limits = LIMITS) =>
  readAttachments(list, limits, new AbortController().signal);

describe('which files are read', () => {
  it('takes PNG, JPEG, GIF and WebP as images, by MIME type or, when that is vague, by name', () => {
    expect(classifyAttachment('a.png', 'image/png')).toEqual({ kind: 'image', mimeType: 'image/png' });
    expect(classifyAttachment('photo.JPG', '')).toEqual({ kind: 'image', mimeType: 'image/jpeg' });
    expect(classifyAttachment('anim.gif', 'application/octet-stream')).toEqual({
      kind: 'image',
      mimeType: 'image/gif',
    });
    expect(classifyAttachment('x.webp', 'image/webp')).toEqual({ kind: 'image', mimeType: 'image/webp' });
  });

  it('takes text, markdown, CSV, JSON and source code as text, with a fence language from the name', () => {
    expect(classifyAttachment('notes.md', 'text/plain')).toEqual({ kind: 'text', language: 'md' });
    expect(classifyAttachment('data.csv', 'text/csv; charset=utf-8')).toEqual({ kind: 'text', language: 'csv' });
    expect(classifyAttachment('config.json', 'application/json')).toEqual({ kind: 'text', language: 'json' });
    expect(classifyAttachment('main.py', '')).toEqual({ kind: 'text', language: 'python' });
    expect(classifyAttachment('Dockerfile', '')).toEqual({ kind: 'text', language: 'dockerfile' });
  });

  it('says why anything else is not read', () => {
    expect(classifyAttachment('report.pdf', 'application/pdf')).toEqual({
      kind: 'unsupported',
      reason: "PDF files aren't supported yet",
    });
    expect(
      classifyAttachment('plan.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'),
    ).toEqual({ kind: 'unsupported', reason: "Word files aren't supported yet" });
    expect(classifyAttachment('scan.tif', 'image/tiff')).toEqual({
      kind: 'unsupported',
      reason: 'only PNG, JPEG, GIF and WebP images are supported',
    });
    expect(classifyAttachment('blob', 'application/octet-stream')).toEqual({
      kind: 'unsupported',
      reason: "files of type application/octet-stream aren't supported yet",
    });
    // A specific MIME type wins over a misleading name.
    expect(classifyAttachment('notes.txt', 'application/pdf').kind).toBe('unsupported');
  });

  it('knows an image by its first bytes, whatever it was labelled', () => {
    expect(sniffImageType(PNG)).toBe('image/png');
    expect(sniffImageType(JPEG)).toBe('image/jpeg');
    expect(sniffImageType(Buffer.from('GIF89a'))).toBe('image/gif');
    expect(sniffImageType(Buffer.from('RIFF\0\0\0\0WEBPVP8 '))).toBe('image/webp');
    expect(sniffImageType(Buffer.from('<html>'))).toBeNull();
  });
});

describe('reading a message’s files', () => {
  it('turns images into data-URL parts with their real type and text files into fenced text under their names', async () => {
    const out = await read([
      file('photo.png', 'image/png', JPEG),
      file('a.ts', 'text/plain', Buffer.from('const x = 1;')),
    ]);
    expect(imagesOf(out)).toEqual([{ name: 'photo.png', url: `data:image/jpeg;base64,${JPEG.toString('base64')}` }]);
    expect(requestWithAttachments('look', out)).toBe(
      'look\n\n📎 photo.png (image, attached)\n\n📎 a.ts:\n```ts\nconst x = 1;\n```',
    );
    expect(attachmentNotes(out)).toEqual([]);
  });

  it('checks the size the platform states before downloading, and the bytes after', async () => {
    const stated = file('big.png', 'image/png', PNG, 6 * 1024 * 1024);
    const understated = file('big.txt', 'text/plain', Buffer.alloc(2048, 0x61), 10);
    const out = await read([stated, understated], { ...LIMITS, maxTextKb: 1 });
    expect(stated.downloads).toBe(0);
    expect(understated.downloads).toBe(1);
    expect(attachmentNotes(out)).toEqual([
      "I couldn't read big.png: it is over the 5 MB limit for images.",
      "I couldn't read big.txt: it is over the 1 KB limit for text files.",
    ]);
  });

  it('gives each failure its own note and still reads the other files', async () => {
    const out = await read([
      file('fake.png', 'image/png', Buffer.from('<html>sign in</html>')),
      file('bin.txt', 'text/plain', Buffer.from([0xff, 0xfe, 0x00])),
      file('gone.md', 'text/markdown', new Error('HTTP 404')),
      file('ok.txt', 'text/plain', Buffer.from('fine')),
    ]);
    expect(attachmentNotes(out)).toEqual([
      "I couldn't read fake.png: it isn't a PNG, JPEG, GIF or WebP image.",
      "I couldn't read bin.txt: it isn't UTF-8 text.",
      "I couldn't read gone.md: downloading it failed.",
    ]);
    expect(requestWithAttachments('r', out)).toContain('📎 ok.txt:\n```\nfine\n```');
    expect(requestWithAttachments('r', out)).toContain('📎 gone.md: [not read: downloading it failed]');
  });

  it('with vision off leaves images undownloaded, says so in the thread and marks them omitted for the model', async () => {
    const image = file('chart.png', 'image/png', PNG);
    const out = await read([image], { ...LIMITS, vision: false });
    expect(image.downloads).toBe(0);
    expect(imagesOf(out)).toEqual([]);
    expect(requestWithAttachments('see', out)).toBe('see\n\n📎 chart.png: [image omitted: vision is off]');
    expect(attachmentNotes(out)).toEqual(["I didn't look at chart.png: reading images is turned off here."]);
  });
});
