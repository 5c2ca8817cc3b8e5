import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ExternalTool } from '../../src/agent/tools/external-tool.js';
import type { ManagedToolSource } from '../../src/app.js';
import { waitFor } from '../fakes/wait-for.js';
import { startSharedFixtureServer } from './mcp-e2e-kit.js';
import { startErrand, texts, type Errand } from './slack-harness.js';

const CHANNEL = 'C0GENERAL';
const ALICE = 'U0ALICE01';
const ANSWER = 'The tracker has two open issues about streaming.';

let e: Errand | null = null;
let dir: string | null = null;
afterEach(async () => {
  await e?.close();
  e = null;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = null;
});

/** Tools as an MCP server offers them: `tracker__search` answers when `release` is called (or at once when open). */
function trackerTools() {
  let release: (() => void) | null = null;
  let open = true;
  const tool = (name: string, needsApproval: boolean): ExternalTool => ({
    name,
    description: `test tool ${name}`,
    inputSchema: { type: 'object', properties: {} },
    needsApproval,
    call: async (_args, _context, signal) => {
      if (!open) {
        await new Promise<void>((resolve) => {
          release = resolve;
          signal.addEventListener('abort', () => resolve(), { once: true });
        });
      }
      if (signal.aborted) return { ok: false, error: `${name} was cancelled: the run was stopped.` };
      return name === 'tracker__search'
        ? { ok: true, note: '2 issues found' }
        : { ok: false, error: 'the tracker refused: project is archived' };
    },
  });
  const tools = [
    tool('tracker__search', false),
    tool('tracker__close_issue', false),
    tool('tracker__create_issue', true),
  ];
  const source: ManagedToolSource = { toolsFor: () => tools };
  return {
    source,
    hold: () => void (open = false),
    release: () => release?.(),
  };
}

/** An ERRAND_CONFIG file with these `slack` settings. */
function configWith(slack: Record<string, unknown>): string {
  dir = mkdtempSync(join(tmpdir(), 'errand-cards-'));
  const path = join(dir, 'errand.json');
  writeFileSync(path, JSON.stringify({ slack }));
  return path;
}

const streamed = (ts: string) => e!.slack.messages(CHANNEL, ts).filter((m) => m.tasks !== undefined);

describe('task cards in streamed Slack answers', () => {
  it('shows each tool call as a card that goes from in progress to complete or error, then the answer in the same message', async () => {
    const tools = trackerTools();
    e = await startErrand({ externalTools: tools.source });
    const { slack: s, model } = e;
    model.reply(
      { toolCalls: [{ id: 'call_read', name: 'read_thread', arguments: '{}' }] },
      {
        toolCalls: [
          { id: 'call_search', name: 'tracker__search', arguments: '{}' },
          { id: 'call_close', name: 'tracker__close_issue', arguments: '{}' },
        ],
      },
      { text: ANSWER },
    );
    const { ts } = await s.mention({ user: ALICE, channel: CHANNEL, text: 'what is open in the tracker?' });
    await waitFor(() => texts(s, ts).includes(ANSWER), 20_000, 'the answer');
    await e.app.coordinator.idle();
    await s.settle();
    const [message, ...others] = streamed(ts);
    expect(others).toEqual([]);
    expect(message!.tasks).toEqual([
      { id: 'call_read', title: 'Reading the thread', status: 'complete' },
      { id: 'call_search', title: 'Running tracker__search', status: 'complete', output: '2 issues found' },
      {
        id: 'call_close',
        title: 'Running tracker__close_issue',
        status: 'error',
        output: 'the tracker refused: project is archived',
      },
    ]);
    expect(message!.text).toBe(ANSWER);
    expect(message!.streaming).toBe(false);
    expect(message!.taskDisplayMode).toBe('timeline');
    expect(texts(s, ts)).toEqual([ANSWER]);
    // The first card went out while its tool ran, before the answer existed.
    const first = s.callsOf('chat.startStream')[0]!;
    expect(JSON.parse(String(first.args.chunks))).toEqual([
      { type: 'task_update', id: 'call_read', title: 'Reading the thread', status: 'in_progress' },
    ]);
    expect(
      s.calls.filter((c) => c.error !== null && c.error !== 'already_reacted' && c.error !== 'no_reaction'),
    ).toEqual([]);
  });

  it('an update posted after a card keeps the answer below it: the answer opens its own stream, and control tools are no cards', async () => {
    const tools = trackerTools();
    e = await startErrand({ externalTools: tools.source });
    const { slack: s, model } = e;
    model.reply(
      {
        toolCalls: [
          { id: 'call_search', name: 'tracker__search', arguments: '{}' },
          { id: 'call_update', name: 'send_update', arguments: { text: 'Found them, writing it up.' } },
        ],
      },
      { text: ANSWER },
    );
    const { ts } = await s.mention({ user: ALICE, channel: CHANNEL, text: 'what is open?' });
    await waitFor(() => texts(s, ts).includes(ANSWER), 20_000, 'the answer');
    await e.app.coordinator.idle();
    const thread = s.messages(CHANNEL, ts).filter((m) => m.ts !== ts && !m.text.startsWith('⏳'));
    expect(thread.map((m) => (m.tasks ? `cards: ${m.tasks.map((t) => t.title).join(', ')}` : m.text))).toEqual([
      'cards: Running tracker__search',
      'Found them, writing it up.',
      ANSWER,
    ]);
  });

  it("never lets a tool's output ping a crowd from a card: <!channel>, <!here>, <!everyone> and user groups are neutralised like posted text", async () => {
    const loud: ExternalTool = {
      name: 'tracker__announce',
      description: 'test tool',
      inputSchema: { type: 'object', properties: {} },
      needsApproval: false,
      call: async () => ({ ok: true, note: 'done <!channel> <!here|here> <!everyone> <!subteam^S0ONCALL|@oncall>' }),
    };
    e = await startErrand({ externalTools: { toolsFor: () => [loud] } });
    const { slack: s, model } = e;
    model.reply({ toolCalls: [{ id: 'call_loud', name: 'tracker__announce', arguments: '{}' }] }, { text: ANSWER });
    const { ts } = await s.mention({ user: ALICE, channel: CHANNEL, text: 'announce it' });
    await waitFor(() => texts(s, ts).includes(ANSWER), 20_000, 'the answer');
    await e.app.coordinator.idle();
    const chunks = s.calls.filter((c) => typeof c.args.chunks === 'string').map((c) => String(c.args.chunks));
    expect(chunks.join('\n')).toContain('tracker__announce');
    expect(chunks.join('\n')).not.toMatch(/<!(channel|here|everyone|subteam)/);
    expect(streamed(ts)[0]!.tasks![0]!.output).toBe('done @\u2060channel @\u2060here @\u2060everyone @\u2060oncall');
  });

  it('groups the cards in a plan with slack.taskDisplay "plan"', async () => {
    e = await startErrand({ env: { ERRAND_CONFIG: configWith({ taskDisplay: 'plan' }) } });
    const { slack: s, model } = e;
    model.reply({ toolCalls: [{ id: 'call_read', name: 'read_thread', arguments: '{}' }] }, { text: ANSWER });
    const { ts } = await s.mention({ user: ALICE, channel: CHANNEL, text: 'summarise this' });
    await waitFor(() => texts(s, ts).includes(ANSWER), 20_000, 'the answer');
    await e.app.coordinator.idle();
    expect(streamed(ts)[0]!.taskDisplayMode).toBe('plan');
  });

  it('a stop ends the running card as stopped and stops the stream: nothing is left spinning', async () => {
    const tools = trackerTools();
    tools.hold();
    e = await startErrand({ externalTools: tools.source });
    const { slack: s, model } = e;
    model.reply(
      { toolCalls: [{ id: 'call_search', name: 'tracker__search', arguments: '{}' }] },
      { text: 'never sent' },
    );
    const { ts } = await s.mention({ user: ALICE, channel: CHANNEL, text: 'search the tracker' });
    await waitFor(() => streamed(ts).length === 1, 20_000, 'the running card');
    expect(streamed(ts)[0]!.tasks).toEqual([
      { id: 'call_search', title: 'Running tracker__search', status: 'in_progress' },
    ]);
    await s.userMessage({ user: ALICE, channel: CHANNEL, text: 'stop', threadTs: ts });
    await waitFor(() => streamed(ts)[0]!.streaming === false, 20_000, 'the stream to stop');
    await e.app.coordinator.idle();
    expect(streamed(ts)[0]!.tasks).toEqual([
      {
        id: 'call_search',
        title: 'Running tracker__search',
        status: 'error',
        output: expect.stringContaining('stopped'),
      },
    ]);
    expect(model.requests).toHaveLength(1);
  });

  it('a shutdown mid-tool removes the card message (the restart answers again), so no card is left spinning', async () => {
    const tools = trackerTools();
    tools.hold();
    e = await startErrand({ externalTools: tools.source });
    const { slack: s, model } = e;
    model.reply({ toolCalls: [{ id: 'call_search', name: 'tracker__search', arguments: '{}' }] });
    const { ts } = await s.mention({ user: ALICE, channel: CHANNEL, text: 'search the tracker' });
    await waitFor(() => streamed(ts).length === 1, 20_000, 'the running card');
    const cardTs = streamed(ts)[0]!.ts;
    await e.app.stop();
    await s.settle();
    expect(s.callsOf('chat.delete').map((c) => c.args.ts)).toContain(cardTs);
    expect(s.messages(CHANNEL, ts).filter((m) => m.streaming)).toEqual([]);
  });

  it('an approval shows as a card waiting for the person, and the stream is closed while the run waits', async () => {
    const tools = trackerTools();
    e = await startErrand({ externalTools: tools.source });
    const { slack: s, model } = e;
    model.reply({ toolCalls: [{ id: 'call_create', name: 'tracker__create_issue', arguments: '{}' }] });
    const { ts } = await s.mention({ user: ALICE, channel: CHANNEL, text: 'file an issue' });
    await waitFor(() => texts(s, ts).some((t) => t.includes('Approval needed')), 20_000, 'the approval question');
    await e.app.coordinator.idle();
    await waitFor(() => streamed(ts)[0]?.streaming === false, 20_000, 'the stream to close');
    expect(streamed(ts)[0]!.tasks).toEqual([
      { id: 'call_create', title: 'Waiting for approval to run tracker__create_issue', status: 'pending' },
    ]);
  });

  it('where the workspace refuses chunks the answer streams as text with the status line, and cards are not tried again', async () => {
    e = await startErrand();
    const { slack: s, model } = e;
    s.refuseChunks('invalid_chunks');
    model.reply({ toolCalls: [{ id: 'call_read', name: 'read_thread', arguments: '{}' }] }, { text: ANSWER });
    const first = await s.mention({ user: ALICE, channel: CHANNEL, text: 'summarise this' });
    await waitFor(() => texts(s, first.ts).includes(ANSWER), 20_000, 'the first answer');
    await e.app.coordinator.idle();
    const refused = s.calls.filter((c) => c.args.chunks !== undefined);
    expect(refused.map((c) => c.error)).toEqual(['invalid_chunks']);
    model.reply({ toolCalls: [{ id: 'call_read2', name: 'read_thread', arguments: '{}' }] }, { text: ANSWER });
    const second = await s.mention({ user: ALICE, channel: CHANNEL, text: 'and again' });
    await waitFor(() => texts(s, second.ts).includes(ANSWER), 20_000, 'the second answer');
    await e.app.coordinator.idle();
    expect(s.calls.filter((c) => c.args.chunks !== undefined)).toHaveLength(1);
    expect(s.callsOf('chat.startStream').filter((c) => c.error === null)).toHaveLength(2);
    expect(texts(s, second.ts)).toEqual([ANSWER]);
  });

  it("an MCP server's progress shows on the running card, at most once a second of the run's clock", async () => {
    const server = await startSharedFixtureServer();
    try {
      e = await startErrand({ externalTools: server.tools });
      const { slack: s, model } = e;
      model.reply(
        { toolCalls: [{ id: 'call_count', name: 'notes__count', arguments: { n: 3, pauseMs: 150 } }] },
        { text: ANSWER },
      );
      const { ts } = await s.mention({ user: ALICE, channel: CHANNEL, text: 'count to three' });
      await waitFor(() => texts(s, ts).includes(ANSWER), 20_000, 'the answer');
      await e.app.coordinator.idle();
      const titles = s.calls
        .flatMap((c) => (typeof c.args.chunks === 'string' ? (JSON.parse(c.args.chunks) as { title?: string }[]) : []))
        .map((c) => c.title);
      expect(titles).toContain('Running notes__count (1/3 counted 1)');
      // The test's clock stands still: the later notifications come within the same second and are not shown.
      expect(titles.filter((t) => t?.includes('2/3') || t?.includes('3/3'))).toEqual([]);
      expect(streamed(ts)[0]!.tasks).toEqual([
        { id: 'call_count', title: 'Running notes__count', status: 'complete', output: 'counted to 3' },
      ]);
    } finally {
      await e?.close();
      e = null;
      await server.close();
    }
  });
});
