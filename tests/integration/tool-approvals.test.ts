import { afterEach, describe, expect, it } from 'vitest';
import type { ExternalTool, ExternalToolSource } from '../../src/agent/tools/external-tool.js';
import { waitFor } from '../fakes/wait-for.js';
import { startHarness, type Harness } from './harness.js';
import { toolResultJson } from '../support/tool-result-json.js';

let h: Harness;
afterEach(async () => h.close());

/** Two tools as an MCP server would offer them: one read-only, one that writes and needs approval. */
function fakeServer() {
  const calls: { name: string; args: Record<string, unknown> }[] = [];
  const tool = (name: string, needsApproval: boolean): ExternalTool => ({
    name,
    description: `test tool ${name}`,
    inputSchema: { type: 'object', properties: { title: { type: 'string' } } },
    needsApproval,
    async call(args) {
      calls.push({ name, args });
      return { ok: true, content: `${name} done` };
    },
  });
  const tools = [tool('tracker__search', false), tool('tracker__create_issue', true)];
  const source: ExternalToolSource = { toolsFor: () => tools };
  return { source, calls };
}

const createStep = { toolCalls: [{ name: 'tracker__create_issue', arguments: { title: 'Printer on fire' } }] };

function toolResults(req: { messages: { role: string; content?: unknown }[] }) {
  return req.messages.filter((m) => m.role === 'tool').map((m) => toolResultJson(m.content) as Record<string, unknown>);
}

async function askForApproval(after = 'Filed it.', userId = 'U42') {
  const server = fakeServer();
  h = await startHarness({}, { externalTools: server.source });
  h.model.reply(createStep, { text: after });
  const thread = h.adapter.thread();
  await h.adapter.say(thread, 'file a bug about the printer', { userId });
  await waitFor(() => h.adapter.posts.some((p) => p.buttons.length === 3));
  await h.app.coordinator.idle();
  const post = h.adapter.posts.find((p) => p.buttons.length === 3)!;
  return { server, thread, post, conv: await h.app.conversations.ensure(thread) };
}

describe('tool approvals', () => {
  it('offers external tools to the model with their schemas', async () => {
    const { post } = await askForApproval();
    const names = (h.model.requests[0]!.tools ?? []).map((t) => t.function.name);
    expect(names).toEqual(expect.arrayContaining(['tracker__search', 'tracker__create_issue', 'send_update']));
    expect(post.text).toMatch(/^<@U42> 🔐 \*\*Approval needed:\*\* I want to run `tracker__create_issue` with:/);
    expect(post.text).toContain('"title": "Printer on fire"');
    expect(post.buttons.map((b) => b.label)).toEqual(['Allow once', 'Always allow here', 'Deny']);
  });

  it('parks the run until the requester clicks Allow once, then runs the tool and goes on', async () => {
    const { server, thread, post, conv } = await askForApproval();
    expect(await h.app.runs.active(conv)).toMatchObject({ status: 'waiting_user' });
    expect(server.calls).toEqual([]);
    expect(await h.adapter.click(post.buttons[0]!.actionId, thread, 'Allow once', 'U42')).toBeNull();
    await waitFor(() => h.adapter.textsIn(thread).includes('Filed it.'));
    expect(server.calls).toEqual([{ name: 'tracker__create_issue', args: { title: 'Printer on fire' } }]);
    expect(toolResults(h.model.requests[1]!)).toEqual([{ ok: true, content: 'tracker__create_issue done' }]);
  });

  it('refuses privately a click from someone other than the requester, and keeps waiting', async () => {
    const { server, thread, post, conv } = await askForApproval();
    const reply = await h.adapter.click(post.buttons[0]!.actionId, thread, 'Allow once', 'U99');
    expect(reply?.text).toMatch(/Only <@U42> \(who asked for this\) or an admin can allow or deny/);
    expect(await h.app.runs.active(conv)).toMatchObject({ status: 'waiting_user' });
    expect(server.calls).toEqual([]);
  });

  it('takes a typed "deny": the model hears the user denied it and the post shows the decision', async () => {
    const { server, thread, post } = await askForApproval('OK, not filing it.');
    await h.adapter.say(thread, 'deny', { userId: 'U42' });
    await waitFor(() => h.adapter.textsIn(thread).includes('OK, not filing it.'));
    expect(server.calls).toEqual([]);
    expect(toolResults(h.model.requests[1]!)).toEqual([{ ok: false, error: 'The user denied this tool call.' }]);
    expect(post.edited).toBe(true);
    expect(post.text).toMatch(/🚫 Denied by <@U42>\.$/);
    expect(post.buttons).toEqual([]);
  });

  it('a typed "allow" from someone else is refused privately; their other messages become to-dos', async () => {
    const { server, thread, conv } = await askForApproval();
    await h.adapter.say(thread, 'allow', { userId: 'U99' });
    await waitFor(() => h.adapter.ephemerals.length > 0);
    expect(h.adapter.ephemerals.at(-1)).toMatchObject({ userId: 'U99', text: expect.stringMatching(/Only <@U42>/) });
    await h.adapter.say(thread, 'also check the toner', { userId: 'U99' });
    await waitFor(() => /Queued as task #2/.test(h.adapter.textsIn(thread).at(-1) ?? ''));
    expect(h.adapter.textsIn(thread).at(-1)).toMatch(
      /Queued as task #2\. I'm waiting for a decision on a tool call first/,
    );
    expect(await h.app.runs.active(conv)).toMatchObject({ status: 'waiting_user' });
    expect(server.calls).toEqual([]);
  });

  it('"Always allow here" remembers the tool for the conversation: later calls run without asking', async () => {
    const { server, thread, post } = await askForApproval();
    await h.adapter.click(post.buttons[1]!.actionId, thread, 'Always allow here', 'U42');
    await waitFor(() => h.adapter.textsIn(thread).includes('Filed it.'));
    h.model.reply(
      { toolCalls: [{ name: 'tracker__create_issue', arguments: { title: 'Second' } }] },
      { text: 'Filed again.' },
    );
    await h.adapter.say(thread, 'and another one', { userId: 'U42' });
    await waitFor(() => h.adapter.textsIn(thread).includes('Filed again.'));
    expect(server.calls.map((c) => c.args.title)).toEqual(['Printer on fire', 'Second']);
    expect(h.adapter.posts.filter((p) => p.buttons.length === 3)).toHaveLength(1);
  });

  it('runs read-only tools without asking, and resumes the rest of a step after approval', async () => {
    const server = fakeServer();
    h = await startHarness({}, { externalTools: server.source });
    h.model.reply(
      {
        toolCalls: [
          { name: 'tracker__search', arguments: {} },
          { name: 'tracker__create_issue', arguments: { title: 'A' } },
          { name: 'tracker__search', arguments: { title: 'again' } },
        ],
      },
      { text: 'Done.' },
    );
    const thread = h.adapter.thread();
    await h.adapter.say(thread, 'search then file', { userId: 'U42' });
    await waitFor(() => h.adapter.posts.some((p) => p.buttons.length === 3));
    expect(server.calls.map((c) => c.name)).toEqual(['tracker__search']);
    await h.adapter.say(thread, 'allow', { userId: 'U42' });
    await waitFor(() => h.adapter.textsIn(thread).includes('Done.'));
    expect(server.calls.map((c) => c.name)).toEqual(['tracker__search', 'tracker__create_issue', 'tracker__search']);
    expect(toolResults(h.model.requests[1]!)).toHaveLength(3);
  });

  it('times out as denied after ASK_TIMEOUT_MINUTES', async () => {
    const { server, thread, post } = await askForApproval('Nobody answered; skipping.');
    h.clock.advance(1441 * 60_000);
    await h.app.heartbeat.tick();
    await waitFor(() => h.adapter.textsIn(thread).some((t) => t.startsWith('Nobody answered; skipping.')));
    expect(server.calls).toEqual([]);
    expect(toolResults(h.model.requests[1]!)[0]).toMatchObject({
      ok: false,
      error: expect.stringMatching(/Nobody approved this tool call within 1440 minutes/),
    });
    expect(post.text).toMatch(/⌛ Nobody decided in time: not run\.$/);
  });

  it('survives a restart while waiting: the decision after it resumes the run', async () => {
    const { server, thread, conv } = await askForApproval();
    await h.restart();
    expect(await h.app.runs.active(conv)).toMatchObject({ status: 'waiting_user' });
    await h.adapter.say(thread, 'allow', { userId: 'U42' });
    await waitFor(() => h.adapter.textsIn(thread).includes('Filed it.'));
    expect(server.calls).toHaveLength(1);
  });
});

describe('tool approvals in the audit log', () => {
  const entries = async () =>
    (await h.app.store.audit.after(0, 100)).map((r) => ({
      kind: r.kind,
      actor: r.actor,
      runId: r.runId,
      detail: (JSON.parse(r.entry) as { detail: Record<string, unknown> }).detail,
    }));

  it('records who allowed the call, then the call itself with its arguments, chained to the entries before', async () => {
    const { thread, post, conv } = await askForApproval();
    const runId = (await h.app.runs.active(conv))!.id;
    await h.adapter.click(post.buttons[0]!.actionId, thread, 'Allow once', 'U42');
    await waitFor(() => h.adapter.textsIn(thread).includes('Filed it.'));
    const log = (await entries()).filter((e) => e.kind !== 'config');
    expect(log).toEqual([
      {
        kind: 'approval',
        actor: 'memory:U42',
        runId,
        detail: expect.objectContaining({
          tool: 'tracker__create_issue',
          decision: 'once',
          arguments: '{"title":"Printer on fire"}',
        }),
      },
      {
        kind: 'tool_call',
        actor: null,
        runId,
        detail: expect.objectContaining({
          tool: 'tracker__create_issue',
          principal: 'memory:U42',
          ok: true,
          arguments: '{"title":"Printer on fire"}',
        }),
      },
    ]);
  });

  it('records a typed denial, and no call', async () => {
    const { thread } = await askForApproval('OK, not filing it.');
    await h.adapter.say(thread, 'deny', { userId: 'U42' });
    await waitFor(() => h.adapter.textsIn(thread).includes('OK, not filing it.'));
    const log = (await entries()).filter((e) => e.kind !== 'config');
    expect(log.map((e) => [e.kind, e.actor, e.detail.decision ?? e.detail.tool])).toEqual([
      ['approval', 'memory:U42', 'deny'],
    ]);
  });
});
