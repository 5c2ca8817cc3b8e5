import { REST, Routes, type RESTOptions } from 'discord.js';
import { WebClient } from '@slack/web-api';
import { afterEach, describe, expect, it } from 'vitest';
import { FAKE_DISCORD_TOKEN, startFakeDiscord, type FakeDiscord } from '../fakes/fake-discord.js';
import { FakeSlack } from '../fakes/fake-slack.js';
import { unknownFileId } from '../fakes/fake-slack-files.js';
import { waitFor } from '../fakes/wait-for.js';
import { pngOfSize } from './kits/file-output-tool.js';

let slack: FakeSlack | null = null;
let discord: FakeDiscord | null = null;
afterEach(async () => {
  await slack?.close();
  slack = null;
  await discord?.close();
  discord = null;
});

/** A Web API client as Bolt builds it, on the fake. */
const clientOf = (fake: FakeSlack) =>
  new WebClient('xoxb-test-token', { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } });

describe('the fake Slack takes uploads the way files.uploadV2 of @slack/web-api sends them', () => {
  it('shares the files in the thread as one file_share message of the bot (no bot_id), served with the same bytes to the bot token only', async () => {
    slack = await FakeSlack.start({ rateLimit: null });
    const { ts } = slack.postUndelivered({ user: 'U0ALICE01', channel: 'C0GENERAL', text: 'chart it' });
    const chart = Buffer.from(pngOfSize(5_000));
    const result = await clientOf(slack).files.uploadV2({
      channel_id: 'C0GENERAL',
      thread_ts: ts,
      file_uploads: [
        { file: chart, filename: 'chart.png' },
        { file: Buffer.from('a,b\n1,2\n'), filename: 'data.csv' },
      ],
    });
    expect(result.ok).toBe(true);
    const [share] = slack.messages('C0GENERAL', ts).filter((m) => m.subtype === 'file_share');
    expect(share).toMatchObject({ user: slack.botUserId, thread_ts: ts });
    expect(share!.bot_id).toBeUndefined();
    expect(share!.files!.map((f) => [f.name, f.mimetype])).toEqual([
      ['chart.png', 'image/png'],
      ['data.csv', 'text/csv'],
    ]);
    const url = String(share!.files![0]!.url_private_download);
    const withToken = await fetch(url, { headers: { authorization: 'Bearer xoxb-test-token' } });
    expect(Buffer.from(await withToken.arrayBuffer()).equals(chart)).toBe(true);
    expect((await fetch(url, { redirect: 'manual' })).status).toBe(302);
  });

  it('echoes the bot its own file_share message, as Slack does', async () => {
    slack = await FakeSlack.start({ rateLimit: null });
    const received: Record<string, unknown>[] = [];
    const { createServer } = await import('node:http');
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        received.push((JSON.parse(body) as { event: Record<string, unknown> }).event);
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    slack.useHttpReceiver(`http://127.0.0.1:${(server.address() as { port: number }).port}/slack/events`);
    const { ts } = slack.postUndelivered({ user: 'U0ALICE01', channel: 'C0GENERAL', text: 'chart it' });
    await clientOf(slack).files.uploadV2({
      channel_id: 'C0GENERAL',
      thread_ts: ts,
      file: Buffer.from('x'),
      filename: 'x.txt',
    });
    await waitFor(() => received.length > 0, 5000, 'the echo');
    expect(received[0]).toMatchObject({
      type: 'message',
      subtype: 'file_share',
      user: slack.botUserId,
      thread_ts: ts,
      files: [expect.objectContaining({ name: 'x.txt' })],
    });
    expect(received[0]!.bot_id).toBeUndefined();
    await slack.settle();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('refuses what Slack refuses: bytes of another length than announced, completing twice or without the bytes, an unknown file', async () => {
    slack = await FakeSlack.start({ rateLimit: null });
    const client = clientOf(slack);
    const { upload_url, file_id } = await client.files.getUploadURLExternal({ filename: 'a.txt', length: 5 });
    expect((await fetch(upload_url!, { method: 'POST', body: 'toolong' })).status).toBe(400);
    await expect(
      client.files.completeUploadExternal({ files: [{ id: file_id! }], channel_id: 'C0GENERAL' }),
    ).rejects.toMatchObject({ data: { error: 'file_not_found' } });
    expect((await fetch(upload_url!, { method: 'POST', body: 'hello' })).status).toBe(200);
    await client.files.completeUploadExternal({ files: [{ id: file_id!, title: 'a.txt' }], channel_id: 'C0GENERAL' });
    await expect(
      client.files.completeUploadExternal({ files: [{ id: file_id! }], channel_id: 'C0GENERAL' }),
    ).rejects.toMatchObject({ data: { error: 'file_not_found' } });
    await expect(client.files.info({ file: unknownFileId() })).rejects.toMatchObject({
      data: { error: 'file_not_found' },
    });
    const info = await client.files.info({ file: file_id! });
    expect(info.file?.shares?.public?.C0GENERAL?.[0]?.ts).toEqual(expect.stringMatching(/^\d+\.\d{6}$/));
    await expect(client.files.getUploadURLExternal({ filename: 'b.txt', length: 0 })).rejects.toMatchObject({
      data: { error: 'invalid_arguments' },
    });
  });
});

describe('the fake Discord takes messages with attachments the way discord.js sends them', () => {
  // Multipart posts go through the global fetch, as the adapter's REST client sends them (adapters/discord/discord-rest.ts):
  // discord.js's own undici 6 `request` hands Node's FormData to whichever undici set the process's global dispatcher,
  // and undici 7 (loaded by Slack's Socket Mode in another file of this worker) cannot read it.
  const rest = (fake: FakeDiscord) =>
    new REST({
      api: fake.apiUrl,
      retries: 0,
      makeRequest: ((url: string, init: RequestInit) => fetch(url, init)) as unknown as RESTOptions['makeRequest'],
    }).setToken(FAKE_DISCORD_TOKEN);

  it('stores the files of a multipart post with their bytes and answers attachment objects with url, filename and size', async () => {
    discord = await startFakeDiscord();
    const bytes = Buffer.from(pngOfSize(3_000));
    const body = { content: '', attachments: [{ id: 0, filename: 'chart.png' }] };
    const posted = (await rest(discord).post(Routes.channelMessages(discord.general.id), {
      body,
      files: [{ name: 'chart.png', data: bytes, contentType: 'image/png' }],
    })) as { attachments: { url: string; filename: string; size: number; content_type?: string }[] };
    expect(posted.attachments).toEqual([
      expect.objectContaining({ filename: 'chart.png', size: bytes.length, content_type: 'image/png' }),
    ]);
    const served = await fetch(posted.attachments[0]!.url);
    expect(Buffer.from(await served.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it('refuses a file past the upload limit with 413 (40005), more than ten files, and attachments naming a missing part (50035)', async () => {
    discord = await startFakeDiscord();
    const route = Routes.channelMessages(discord.general.id);
    const file = (i: number, size = 10) => ({ name: `f${i}.bin`, data: Buffer.alloc(size, i) });
    await expect(
      rest(discord).post(route, { body: { content: '' }, files: [file(0, 10 * 1024 * 1024 + 1)] }),
    ).rejects.toMatchObject({ status: 413, code: 40005 });
    await expect(
      rest(discord).post(route, { body: { content: '' }, files: Array.from({ length: 11 }, (_, i) => file(i)) }),
    ).rejects.toMatchObject({ code: 50035 });
    await expect(
      rest(discord).post(route, { body: { content: '', attachments: [{ id: 3, filename: 'x' }] }, files: [file(0)] }),
    ).rejects.toMatchObject({ code: 50035 });
    expect(discord.botMessagesIn(discord.general.id)).toEqual([]);
  });
});
