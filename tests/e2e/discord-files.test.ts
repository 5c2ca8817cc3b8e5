import { afterEach, describe, expect, it } from 'vitest';
import { createDiscordAdapter, discordOptionsFromConfig } from '../../adapters/discord/create-discord-adapter.js';
import { createApp, type App } from '../../src/app.js';
import { conversationKey } from '../../src/chat/conversation-ref.js';
import { FakeClock } from '../fakes/fake-clock.js';
import type { FakeDiscord } from '../fakes/fake-discord.js';
import type { RecordedRequest } from '../fakes/fake-openai.js';
import { MemoryWorkspace } from '../fakes/memory-workspace.js';
import { waitFor } from '../fakes/wait-for.js';
import { toolResultJson } from '../support/tool-result-json.js';
import {
  attachedFiles,
  startDiscordErrand,
  startDiscordWorld,
  TEST_TUNING,
  type DiscordErrand,
  type DiscordWorld,
} from './discord-harness.js';
import { fileOutputTool, pngOfSize } from './kits/file-output-tool.js';

const CSV = new TextEncoder().encode('customer,churned\nacme,yes\nglobex,no\n');
const CHART = pngOfSize(100_000);

let e: DiscordErrand | null = null;
let world: DiscordWorld | null = null;
let apps: App[] = [];
afterEach(async () => {
  await e?.close();
  e = null;
  world?.discord.releaseAnswers();
  for (const app of apps) await app.stop();
  apps = [];
  await world?.close();
  world = null;
});

const texts = (d: FakeDiscord, channelId: string) =>
  d
    .botMessagesIn(channelId)
    .map((m) => m.content)
    .filter((t) => !t.startsWith('⏳ Working'));
const lastToolResult = (req: RecordedRequest): unknown =>
  toolResultJson(req.messages.filter((m) => m.role === 'tool').at(-1)?.content);
const userText = (req: RecordedRequest): string =>
  req.messages
    .filter((m) => m.role === 'user')
    .map((m) =>
      Array.isArray(m.content)
        ? (m.content as { text?: string }[]).map((p) => p.text ?? '').join('')
        : String(m.content),
    )
    .join('\n');

describe('files out on Discord: a run posts the files its code wrote', () => {
  it('posts them as one message of attachments with the same bytes, the chart as an image, before the streamed answer after them', async () => {
    let app: App | null = null;
    const tool = fileOutputTool(() => app!.filesOut, {
      report: [
        { name: 'chart.png', bytes: CHART, mimeType: 'image/png' },
        { name: 'churn.csv', bytes: CSV, mimeType: 'text/csv' },
      ],
    });
    e = await startDiscordErrand({}, { externalTools: tool });
    app = e.app;
    const { discord: d, model } = e;
    model.reply(
      { toolCalls: [{ name: 'test__write_files', arguments: { set: 'report' } }] },
      { text: 'Here is the churn chart.' },
    );
    const msg = d.userMessage(d.general.id, `<@${d.bot.id}> chart the churn`);
    await waitFor(() => texts(d, msg.id).includes('Here is the churn chart.'), 10_000, 'the answer');

    const files = attachedFiles(d, msg.id);
    expect(files.map((f) => [f.name, f.mimeType])).toEqual([
      ['chart.png', 'image/png'],
      ['churn.csv', 'text/csv'],
    ]);
    expect(Buffer.from(files[0]!.bytes).equals(Buffer.from(CHART))).toBe(true);
    expect(Buffer.from(files[1]!.bytes).equals(Buffer.from(CSV))).toBe(true);
    const posts = d.botMessagesIn(msg.id).filter((m) => !m.content.startsWith('⏳ Working'));
    expect(posts.map((m) => (m.attachments?.length ? `files:${m.attachments.length}` : m.content))).toEqual([
      'files:2',
      'Here is the churn chart.',
    ]);
    // Sent as multipart with payload_json naming each files[n], and the outbox row's key as its nonce.
    const upload = d.calls.find((c) => c.method === 'POST' && (c.files?.length ?? 0) > 0)!;
    expect(upload.files!.map((f) => f.field)).toEqual(['files[0]', 'files[1]']);
    expect(upload.body).toMatchObject({
      attachments: [
        { id: 0, filename: 'chart.png' },
        { id: 1, filename: 'churn.csv' },
      ],
      nonce: expect.stringMatching(/^e\d+$/),
      enforce_nonce: true,
    });
    expect(lastToolResult(model.requests[1]!)).toMatchObject({
      ok: true,
      files: [
        { name: 'chart.png', posted: true },
        { name: 'churn.csv', posted: true },
      ],
    });
  });

  it("refuses a file past Discord's upload limit with a note in the thread and tells the model why", async () => {
    let app: App | null = null;
    const tool = fileOutputTool(() => app!.filesOut, {
      big: [{ name: 'huge.png', bytes: pngOfSize(10 * 1024 * 1024 + 1), mimeType: 'image/png' }],
    });
    e = await startDiscordErrand({}, { externalTools: tool });
    app = e.app;
    const { discord: d, model } = e;
    model.reply(
      { toolCalls: [{ name: 'test__write_files', arguments: { set: 'big' } }] },
      { text: 'Too big for Discord.' },
    );
    const msg = d.userMessage(d.general.id, `<@${d.bot.id}> chart everything`);
    await waitFor(() => texts(d, msg.id).includes('Too big for Discord.'), 10_000, 'the answer');
    expect(texts(d, msg.id)).toContain("I couldn't post huge.png: it is 10 MB, and Discord takes files up to 10 MB.");
    expect(attachedFiles(d, msg.id)).toEqual([]);
    expect(d.calls.some((c) => (c.files?.length ?? 0) > 0)).toBe(false);
    expect(lastToolResult(model.requests[1]!)).toMatchObject({
      files: [{ name: 'huge.png', posted: false, reason: expect.stringContaining('Discord takes files up to 10 MB') }],
    });
  });

  it('a process stopped after Discord stored the message but before Errand heard so: after the restart the nonce returns it, no second message', async () => {
    world = await startDiscordWorld({ STREAMING: 'false' });
    const { discord: d, model, config } = world;
    let current: App | null = null;
    const tool = fileOutputTool(() => current!.filesOut, {
      report: [{ name: 'chart.png', bytes: CHART, mimeType: 'image/png' }],
    });
    const start = async () => {
      const adapter = createDiscordAdapter({ ...discordOptionsFromConfig(config), tuning: TEST_TUNING });
      // No backoff: a post whose answer never came (discord.js gives up after 15 s on a loaded machine) is due at once
      // after the restart, whose clock does not move by itself.
      current = await createApp({
        config,
        adapters: [adapter],
        clock: new FakeClock(),
        modelBackoffMs: () => 5,
        outboxBackoffMs: () => 0,
        externalTools: tool,
      });
      apps.push(current);
      await current.start();
      return current;
    };
    model.respondWith((req) =>
      req.messages.some((m) => m.role === 'tool') || model.requests.length > 1
        ? { text: 'The chart is in the thread.' }
        : { toolCalls: [{ name: 'test__write_files', arguments: { set: 'report' } }] },
    );
    const first = await start();
    // Only the first post of the files is held: the process dies waiting for it; the one after the restart is answered.
    let held = 0;
    d.holdAnswers(/^\/channels\/\d+\/messages$/, (call) => (call.files?.length ?? 0) > 0 && held++ === 0);
    const msg = d.userMessage(d.general.id, `<@${d.bot.id}> chart the churn`);
    await waitFor(() => attachedFiles(d, msg.id).length === 1, 10_000, 'the files stored, the answer held back');

    await first.stop();
    apps = apps.filter((a) => a !== first);
    await start();
    await waitFor(
      () => texts(d, msg.id).includes('The chart is in the thread.'),
      45_000,
      'the answer after the restart',
    );
    d.releaseAnswers();

    expect(d.botMessagesIn(msg.id).filter((m) => (m.attachments?.length ?? 0) > 0)).toHaveLength(1);
    // The restarted process sent the post again with the same nonce, and Discord answered with the first message.
    const tries = d.calls.filter((c) => (c.files?.length ?? 0) > 0);
    expect(tries.length).toBeGreaterThanOrEqual(2);
    expect(new Set(tries.map((c) => (c.body as { nonce?: string }).nonce)).size).toBe(1);
  }, 90_000);
});

describe('attachments as data on Discord', () => {
  it("copies a person's attachments into /workspace/in/ of the thread's conversation and tells the model", async () => {
    const workspace = new MemoryWorkspace();
    e = await startDiscordErrand({}, { workspaceInputs: workspace });
    const { discord: d, model } = e;
    model.reply({ text: 'Got the export.' });
    const msg = d.userMessage(d.general.id, `<@${d.bot.id}> here is the export`, d.alice, [
      { name: 'data.csv', contentType: 'text/csv', bytes: Buffer.from(CSV) },
    ]);
    await waitFor(() => texts(d, msg.id).includes('Got the export.'), 10_000, 'the answer');
    const conversation = conversationKey({
      platform: 'discord',
      workspace: d.guildId,
      channel: d.general.id,
      thread: msg.id,
    });
    expect(workspace.pathsOf(conversation)).toEqual(['in/data.csv']);
    expect(Buffer.from(workspace.files.get(conversation)!.get('in/data.csv')!).equals(Buffer.from(CSV))).toBe(true);
    expect(userText(model.requests[0]!)).toContain(
      `Attached files are in /workspace/in/: data.csv (${CSV.byteLength} bytes).`,
    );
    expect(d.attachmentDownloads).toHaveLength(1);
  });
});
