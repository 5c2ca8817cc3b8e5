import { afterEach, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../fakes/fake-openai.js';
import { waitFor } from '../fakes/wait-for.js';
import { toolResultJson } from '../support/tool-result-json.js';
import { attachedFiles, startDiscordErrand, type DiscordErrand } from './discord-harness.js';
import { pngOfSize } from './kits/file-output-tool.js';
import { sharedFiles, startErrand, texts, type Errand } from './slack-harness.js';

/*
 * The two halves of "Running code in a sandbox" together, on the real sandbox (bubblewrap): a person's CSV lands
 * in /workspace/in/, run_code's Python reads it and writes a chart and a table to /workspace/out/, and the thread
 * gets them with the bytes the code wrote, through the platforms' upload paths and the outbox.
 */

const CSV = 'customer,churned\nacme,yes\nglobex,no\ninitech,yes\n';
const CHART = Buffer.from(pngOfSize(20_000));
/** What the code writes: the chart's bytes as given, and a count of the churned customers read from in/data.csv. */
const CODE = [
  'import base64, csv',
  "rows = list(csv.DictReader(open('in/data.csv')))",
  "churned = sum(1 for r in rows if r['churned'] == 'yes')",
  "open('out/summary.csv', 'w').write(f'churned,total\\n{churned},{len(rows)}\\n')",
  `open('out/chart.png', 'wb').write(base64.b64decode('${CHART.toString('base64')}'))`,
  "print('written')",
].join('\n');
const SUMMARY = 'churned,total\n2,3\n';

/** The fake model: run the code for the request, then answer with what the tool said. */
function script(model: {
  respondWith(
    fn: (
      req: RecordedRequest,
    ) => { text: string } | { toolCalls: { name: string; arguments: Record<string, unknown> }[] },
  ): void;
}): void {
  model.respondWith((req) =>
    req.messages.at(-1)?.role === 'tool'
      ? { text: 'Here is the churn.' }
      : { toolCalls: [{ name: 'run_code', arguments: { language: 'python', code: CODE } }] },
  );
}

const runCodeResult = (requests: RecordedRequest[]): unknown =>
  toolResultJson(requests.find((r) => r.messages.at(-1)?.role === 'tool')?.messages.at(-1)?.content);

let slack: Errand | null = null;
let discord: DiscordErrand | null = null;
afterEach(async () => {
  await slack?.close();
  slack = null;
  await discord?.close();
  discord = null;
});

describe('run_code on the real sandbox: an attached CSV in, the files the code wrote out', () => {
  it('Slack: the code reads in/data.csv and its chart and table reach the thread with the same bytes', async () => {
    slack = await startErrand({ env: { STREAMING: 'false' } });
    const { slack: s, model } = slack;
    script(model);
    const { ts } = await s.mention({
      user: 'U0ALICE01',
      channel: 'C0GENERAL',
      text: 'who churned? chart it',
      files: [{ name: 'data.csv', mimetype: 'text/csv', bytes: Buffer.from(CSV) }],
    });
    await waitFor(() => texts(s, ts).includes('Here is the churn.'), 30_000, 'the answer');

    expect(runCodeResult(model.requests)).toMatchObject({
      ok: true,
      exit_code: 0,
      stdout: 'written\n',
      files: [
        { name: 'chart.png', posted: true },
        { name: 'summary.csv', posted: true },
      ],
    });
    const files = await sharedFiles(s, 'C0GENERAL', ts);
    expect(files.map((f) => [f.name, f.mimeType])).toEqual([
      ['chart.png', 'image/png'],
      ['summary.csv', 'text/csv'],
    ]);
    expect(Buffer.from(files[0]!.bytes).equals(CHART)).toBe(true);
    expect(Buffer.from(files[1]!.bytes).toString()).toBe(SUMMARY);
  }, 60_000);

  it('Discord: the same files reach the thread as attachments of one message', async () => {
    discord = await startDiscordErrand({ STREAMING: 'false' });
    const { discord: d, model } = discord;
    script(model);
    const msg = d.userMessage(d.general.id, `<@${d.bot.id}> who churned? chart it`, d.alice, [
      { name: 'data.csv', contentType: 'text/csv', bytes: Buffer.from(CSV) },
    ]);
    await waitFor(() => d.botMessagesIn(msg.id).some((m) => m.content === 'Here is the churn.'), 30_000, 'the answer');

    expect(runCodeResult(model.requests)).toMatchObject({
      ok: true,
      files: [
        { name: 'chart.png', posted: true },
        { name: 'summary.csv', posted: true },
      ],
    });
    const files = attachedFiles(d, msg.id);
    expect(files.map((f) => [f.name, f.mimeType])).toEqual([
      ['chart.png', 'image/png'],
      ['summary.csv', 'text/csv'],
    ]);
    expect(Buffer.from(files[0]!.bytes).equals(CHART)).toBe(true);
    expect(Buffer.from(files[1]!.bytes).toString()).toBe(SUMMARY);
  }, 60_000);
});
