import { afterEach, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { conversationKey } from '../../src/chat/conversation-ref.js';
import type { RecordedRequest } from '../fakes/fake-openai.js';
import { errandFileEnv } from '../fixtures/errand-file.js';
import { MemoryWorkspace } from '../fakes/memory-workspace.js';
import { toolResultJson } from '../support/tool-result-json.js';
import { waitFor } from '../fakes/wait-for.js';
import { fileOutputTool, pngOfSize } from './kits/file-output-tool.js';
import { sharedFiles, startErrand, texts, type Errand } from './slack-harness.js';
import { startRestartableSlackErrand, type RestartableSlackErrand } from './slack-restart-harness.js';

const CHANNEL = 'C0GENERAL';
const ALICE = 'U0ALICE01';
const CSV = new TextEncoder().encode('customer,churned\nacme,yes\nglobex,no\n');
const CHART = pngOfSize(100_000);

let e: Errand | null = null;
let restartable: RestartableSlackErrand | null = null;
afterEach(async () => {
  await e?.close();
  e = null;
  restartable?.slack.releaseAnswers();
  await restartable?.close();
  restartable = null;
});

/** The text of every user message of a request. */
const userText = (req: RecordedRequest): string =>
  req.messages
    .filter((m) => m.role === 'user')
    .map((m) =>
      Array.isArray(m.content)
        ? (m.content as { text?: string }[]).map((p) => p.text ?? '').join('')
        : String(m.content),
    )
    .join('\n');

/** The tool result the model was sent for its last call. */
const lastToolResult = (req: RecordedRequest): unknown =>
  toolResultJson(req.messages.filter((m) => m.role === 'tool').at(-1)?.content);

describe('files out on Slack: a run posts the files its code wrote', () => {
  // Not streamed: a streamed answer on Slack lives in the message that showed the tool call's card, opened before it ran.
  it('posts the files to the thread with the same bytes, the chart as an image, before the answer that follows them', async () => {
    let app: App | null = null;
    const tool = fileOutputTool(() => app!.filesOut, {
      report: [
        { name: 'chart.png', bytes: CHART, mimeType: 'image/png' },
        { name: 'churn.csv', bytes: CSV, mimeType: 'text/csv' },
      ],
    });
    e = await startErrand({ externalTools: tool, env: { STREAMING: 'false' } });
    app = e.app;
    const { slack: s, model } = e;
    model.reply(
      { toolCalls: [{ name: 'test__write_files', arguments: { set: 'report' } }] },
      { text: 'Here is the churn chart.' },
    );
    const { ts } = await s.mention({ user: ALICE, channel: CHANNEL, text: 'chart the churn' });
    await waitFor(() => texts(s, ts).includes('Here is the churn chart.'), 10_000, 'the answer');

    const files = await sharedFiles(s, CHANNEL, ts);
    expect(files.map((f) => [f.name, f.mimeType])).toEqual([
      ['chart.png', 'image/png'],
      ['churn.csv', 'text/csv'],
    ]);
    expect(Buffer.from(files[0]!.bytes).equals(Buffer.from(CHART))).toBe(true);
    expect(Buffer.from(files[1]!.bytes).equals(Buffer.from(CSV))).toBe(true);
    // One message holds both files, in the thread, before the answer that came after the tool call.
    const thread = s.messages(CHANNEL, ts).filter((m) => m.user === s.botUserId && !m.text.startsWith('⏳ Working'));
    expect(thread.map((m) => (m.subtype === 'file_share' ? `files:${m.files?.length}` : m.text))).toEqual([
      'files:2',
      'Here is the churn chart.',
    ]);
    expect(s.callsOf('files.completeUploadExternal')).toHaveLength(1);
    expect(s.callsOf('files.completeUploadExternal')[0]!.args).toMatchObject({ channel_id: CHANNEL, thread_ts: ts });
    expect(tool.results).toEqual([
      [
        { name: 'chart.png', posted: true },
        { name: 'churn.csv', posted: true },
      ],
    ]);
    expect(lastToolResult(model.requests[1]!)).toMatchObject({
      ok: true,
      files: [
        { name: 'chart.png', posted: true },
        { name: 'churn.csv', posted: true },
      ],
    });
    // The bot's own file_share message came back as an event and started nothing.
    await s.settle();
    expect(
      s.deliveries.some(
        (d) => d.event.subtype === 'file_share' && d.event.user === s.botUserId && d.event.bot_id === undefined,
      ),
    ).toBe(true);
    expect(model.requests).toHaveLength(2);
    // Once posted, the bytes are gone from the database; the outbox row keeps the record.
    await e.app.outbox.idle();
    expect(await e.app.store.outboxFiles.releaseSettled()).toBe(0);
  });

  it('refuses a file bigger than SLACK_MAX_FILE_MB with a note in the thread, tells the model why, and posts the rest', async () => {
    let app: App | null = null;
    const big = pngOfSize(1_500_000);
    const tool = fileOutputTool(() => app!.filesOut, {
      both: [
        { name: 'huge.png', bytes: big, mimeType: 'image/png' },
        { name: 'churn.csv', bytes: CSV, mimeType: 'text/csv' },
      ],
    });
    e = await startErrand({ externalTools: tool, env: { SLACK_MAX_FILE_MB: '1' } });
    app = e.app;
    const { slack: s, model } = e;
    model.reply(
      { toolCalls: [{ name: 'test__write_files', arguments: { set: 'both' } }] },
      { text: 'The chart was too big.' },
    );
    const { ts } = await s.mention({ user: ALICE, channel: CHANNEL, text: 'chart everything' });
    await waitFor(() => texts(s, ts).includes('The chart was too big.'), 10_000, 'the answer');

    expect(texts(s, ts)).toContain("I couldn't post huge.png: it is 1.5 MB, and Slack takes files up to 1 MB.");
    expect((await sharedFiles(s, CHANNEL, ts)).map((f) => f.name)).toEqual(['churn.csv']);
    expect(s.callsOf('files.getUploadURLExternal').map((c) => c.args.filename)).toEqual(['churn.csv']);
    expect(lastToolResult(model.requests[1]!)).toMatchObject({
      files: [
        { name: 'huge.png', posted: false, reason: 'it is 1.5 MB, and Slack takes files up to 1 MB' },
        { name: 'churn.csv', posted: true },
      ],
    });
  });
});

describe('files out on Slack across a restart', () => {
  it('a process stopped after Slack shared the files but before Errand heard so: after the restart they are found, not posted again', async () => {
    let current: RestartableSlackErrand | null = null;
    const tool = () =>
      fileOutputTool(() => current!.app().filesOut, {
        report: [{ name: 'chart.png', bytes: CHART, mimeType: 'image/png' }],
      });
    // No backoff: should the Web API client give up on the held call first (30 s, a loaded machine), the post is due at once after the restart.
    restartable = current = await startRestartableSlackErrand({
      externalTools: tool,
      env: { STREAMING: 'false' },
      outboxBackoffMs: () => 0,
    });
    const { slack: s, model } = restartable;
    model.respondWith((req) =>
      req.messages.some((m) => m.role === 'tool') || model.requests.length > 1
        ? { text: 'The chart is in the thread.' }
        : { toolCalls: [{ name: 'test__write_files', arguments: { set: 'report' } }] },
    );
    s.holdAnswers('files.completeUploadExternal');
    const { ts } = await s.mention({ user: ALICE, channel: CHANNEL, text: 'chart the churn' });
    await waitFor(() => s.heldAnswers() > 0, 10_000, 'the files shared, the answer held back');
    expect(s.uploads.shared(CHANNEL, ts)).toHaveLength(1);

    // A shutdown gives up on the post in flight (its answer never comes): the row stays pending, its file recorded.
    await restartable.stop();
    await restartable.start();
    await waitFor(() => texts(s, ts).includes('The chart is in the thread.'), 45_000, 'the answer after the restart');
    await restartable.app().outbox.idle();
    s.releaseAnswers();

    const shares = s.messages(CHANNEL, ts).filter((m) => m.subtype === 'file_share');
    expect(shares).toHaveLength(1);
    expect((await sharedFiles(s, CHANNEL, ts)).map((f) => Buffer.from(f.bytes).equals(Buffer.from(CHART)))).toEqual([
      true,
    ]);
    // The restarted process asked Slack about the file it had recorded, and neither uploaded nor shared it again.
    expect(s.callsOf('files.info').length).toBeGreaterThan(0);
    expect(s.callsOf('files.getUploadURLExternal')).toHaveLength(1);
    expect(s.callsOf('files.completeUploadExternal')).toHaveLength(1);
  }, 90_000);
});

describe('attachments as data on Slack: people’s files land in the workspace', () => {
  it('copies each attached file into /workspace/in/, a clashing name suffixed, and tells the model where they are', async () => {
    const workspace = new MemoryWorkspace();
    e = await startErrand({ workspaceInputs: workspace });
    const { slack: s, model } = e;
    model.reply({ text: 'Got the export.' }, { text: 'Got the second export.' });
    const { ts } = await s.mention({
      user: ALICE,
      channel: CHANNEL,
      text: 'here is the export',
      files: [{ name: 'data.csv', mimetype: 'text/csv', bytes: Buffer.from(CSV) }],
    });
    await waitFor(() => texts(s, ts).includes('Got the export.'), 10_000, 'the first answer');
    await e.app.coordinator.idle();
    const xlsx = Buffer.from('PK\u0003\u0004 not really a spreadsheet');
    await s.userMessage({
      user: ALICE,
      channel: CHANNEL,
      threadTs: ts,
      text: 'and the new one',
      files: [
        { name: 'data.csv', mimetype: 'text/csv', bytes: Buffer.from('customer,churned\ninitech,yes\n') },
        {
          name: 'report.xlsx',
          mimetype: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
          bytes: xlsx,
        },
      ],
    });
    await waitFor(() => texts(s, ts).includes('Got the second export.'), 10_000, 'the second answer');

    const conversation = conversationKey({ platform: 'slack', workspace: s.teamId, channel: CHANNEL, thread: ts });
    expect(workspace.pathsOf(conversation)).toEqual(['in/data.csv', 'in/data-1.csv', 'in/report.xlsx']);
    expect(Buffer.from(workspace.files.get(conversation)!.get('in/data.csv')!).equals(Buffer.from(CSV))).toBe(true);
    expect(Buffer.from(workspace.files.get(conversation)!.get('in/report.xlsx')!).equals(xlsx)).toBe(true);
    expect(userText(model.requests[0]!)).toContain(
      `Attached files are in /workspace/in/: data.csv (${CSV.byteLength} bytes).`,
    );
    const second = userText(model.requests[1]!);
    expect(second).toContain('Attached files are in /workspace/in/: data-1.csv (29 bytes), report.xlsx (');
    expect(second).toContain('the file is at /workspace/in/report.xlsx]');
    // Downloaded once each, with the bot token, for both the model and the workspace.
    expect(s.fileDownloads.map((d) => [d.token, d.status])).toEqual([
      ['xoxb-test-token', 200],
      ['xoxb-test-token', 200],
      ['xoxb-test-token', 200],
    ]);
    // The spreadsheet is in the workspace, so nobody is told it could not be read.
    expect(texts(s, ts).join('\n')).not.toContain("couldn't read report.xlsx");
  });

  it('without the sandbox, attachments are only read, as before', async () => {
    e = await startErrand({ env: errandFileEnv({ sandbox: { enabled: false } }) });
    const { slack: s, model } = e;
    model.reply({ text: 'Read it.' });
    const { ts } = await s.mention({
      user: ALICE,
      channel: CHANNEL,
      text: 'read this',
      files: [{ name: 'data.csv', mimetype: 'text/csv', bytes: Buffer.from(CSV) }],
    });
    await waitFor(() => texts(s, ts).includes('Read it.'), 10_000, 'the answer');
    expect(userText(model.requests[0]!)).not.toContain('/workspace/in/');
    expect(s.fileDownloads).toHaveLength(1);
  });
});
