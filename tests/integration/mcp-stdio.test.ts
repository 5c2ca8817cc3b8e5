import { realpathSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExternalTool } from '../../src/agent/tools/external-tool.js';
import { createMcpHub, type McpHub } from '../../src/composition/mcp-hub.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { waitFor } from '../fakes/wait-for.js';
import {
  capturingLogger,
  contentOf,
  eventsFile,
  otherChannel,
  processGone,
  slackChannel,
  stdioFixture,
  toolContext,
} from '../fixtures/mcp/mcp-test-kit.js';

function find(hub: McpHub, name: string): ExternalTool {
  const tool = hub.toolsFor(slackChannel).find((t) => t.name === name);
  if (!tool)
    throw new Error(
      `no tool ${name}; have ${hub
        .toolsFor(slackChannel)
        .map((t) => t.name)
        .join(', ')}`,
    );
  return tool;
}

const call = (hub: McpHub, name: string, args: Record<string, unknown> = {}, signal = new AbortController().signal) =>
  find(hub, name).call(args, toolContext(), signal);

describe('MCP client over stdio', () => {
  const events = eventsFile();
  const clock = new FakeClock();
  const log = capturingLogger();
  let hub: McpHub;

  beforeAll(async () => {
    hub = createMcpHub({
      servers: { notes: stdioFixture({ timeoutSeconds: 5 }, { MCP_FIXTURE_EVENTS: events.path }) },
      logger: log.logger,
      clock,
      maxResultChars: 2000,
    });
    await hub.start();
  });
  afterAll(() => hub.close());

  it('offers every tool as <server>__<tool> with its description and input schema', () => {
    const tools = hub.toolsFor(slackChannel);
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining([
        'notes__read_note',
        'notes__write_note',
        'notes__slow',
        'notes__fail',
        'notes__dotted_name',
      ]),
    );
    const read = find(hub, 'notes__read_note');
    expect(read.description).toBe('Reads a note.');
    expect(read.inputSchema).toMatchObject({
      type: 'object',
      properties: { key: { type: 'string' } },
      required: ['key'],
    });
    expect(hub.status()).toEqual([
      { name: 'notes', state: 'connected', reason: null, tools: tools.length, pid: expect.any(Number) },
    ]);
  });

  it('asks approval for tools not annotated read-only, under the default "auto"', () => {
    expect(find(hub, 'notes__read_note').needsApproval).toBe(false);
    expect(find(hub, 'notes__write_note').needsApproval).toBe(true);
    expect(find(hub, 'notes__fail').needsApproval).toBe(true);
  });

  it('returns a read-only tool’s text and a writing tool’s effect', async () => {
    expect(await call(hub, 'notes__read_note', { key: 'shopping' })).toEqual({
      ok: true,
      content: 'note shopping: buy milk',
    });
    expect(await call(hub, 'notes__write_note', { key: 'k', text: 'v' })).toEqual({ ok: true, content: 'saved k' });
    expect(events.read()).toContain('wrote k=v');
  });

  it('turns isError into { ok: false } with the server’s message', async () => {
    expect(await call(hub, 'notes__fail')).toEqual({ ok: false, error: 'the disk is full' });
  });

  it('tells the model what was wrong with bad arguments', async () => {
    const result = await call(hub, 'notes__read_note', { key: 42 });
    expect(result.ok).toBe(false);
    expect(JSON.stringify(result)).toMatch(/key/);
  });

  it('caps a large result with a note, summarises images and passes structured content', async () => {
    const big = await call(hub, 'notes__big', { n: 10_000 });
    expect(contentOf(big)).toMatch(/\[cut: \d+ more characters\]$/);
    expect(contentOf(big).length).toBeLessThanOrEqual(2000);
    expect(await call(hub, 'notes__mixed')).toEqual({
      ok: true,
      content: 'chart attached\n\n[image image/png, 12 KB]\n\n[resource file:///tmp/report.csv]',
    });
    expect(await call(hub, 'notes__stats')).toEqual({ ok: true, structured: { count: 2, names: ['a', 'b'] } });
  });

  it('aborting the run cancels the call, and the server sees notifications/cancelled', async () => {
    const stop = new AbortController();
    const pending = call(hub, 'notes__slow', {}, stop.signal);
    await waitFor(() => events.read().includes('started slow'), 10_000, 'the slow tool to start');
    stop.abort();
    expect(await pending).toEqual({ ok: false, error: 'notes__slow was cancelled: the run was stopped.' });
    await waitFor(
      () => events.read().filter((e) => e === 'cancelled slow').length === 1,
      10_000,
      'the server to see the cancellation',
    );
  });

  it('a call past timeoutSeconds gives a timeout error and cancels the request on the server', async () => {
    const before = events.read().filter((e) => e === 'started slow').length;
    const pending = call(hub, 'notes__slow');
    await waitFor(
      () => events.read().filter((e) => e === 'started slow').length === before + 1,
      10_000,
      'the slow tool to start',
    );
    clock.advance(5000);
    expect(await pending).toEqual({
      ok: false,
      error: 'notes__slow timed out after 5 s. Try a smaller request, or do without it.',
    });
    await waitFor(
      () => events.read().filter((e) => e === 'cancelled slow').length === before + 1,
      10_000,
      'the server to see the cancellation',
    );
  });

  it('follows notifications/tools/list_changed', async () => {
    expect(hub.toolsFor(slackChannel).some((t) => t.name === 'notes__late')).toBe(false);
    expect(await call(hub, 'notes__add_tool')).toEqual({ ok: true, content: 'added' });
    await waitFor(() => hub.toolsFor(slackChannel).some((t) => t.name === 'notes__late'), 10_000, 'the new tool');
    expect(await call(hub, 'notes__late')).toEqual({ ok: true, content: 'late' });
  });

  it('close ends the server process, and a call still in flight says Errand is shutting down', async () => {
    const pid = hub.status()[0]!.pid!;
    expect(processGone(pid)).toBe(false);
    const started = events.read().filter((e) => e === 'started slow').length;
    const pending = call(hub, 'notes__slow');
    await waitFor(
      () => events.read().filter((e) => e === 'started slow').length === started + 1,
      10_000,
      'the slow tool to start',
    );
    await hub.close();
    expect(processGone(pid)).toBe(true);
    expect(await pending).toEqual({ ok: false, error: 'notes__slow did not finish: Errand is shutting down.' });
    expect(hub.status()[0]!.state).toBe('closed');
  });
});

describe('MCP server settings', () => {
  it('a stdio server gets its own env over a minimal safe environment, and its cwd', async () => {
    process.env.ERRAND_TEST_PARENT_SECRET = 'do-not-leak';
    const cwd = import.meta.dirname;
    const hub = createMcpHub({
      servers: { w: stdioFixture({ tools: ['whereami'], cwd }, { SERVER_TOKEN: 'given' }) },
      logger: capturingLogger().logger,
    });
    try {
      await hub.start();
      const result = await call(hub, 'w__whereami', { names: ['SERVER_TOKEN', 'ERRAND_TEST_PARENT_SECRET', 'PATH'] });
      const seen = JSON.parse(contentOf(result)) as { cwd: string; env: Record<string, string | null> };
      expect(realpathSync(seen.cwd)).toBe(realpathSync(cwd));
      expect(seen.env).toEqual({ SERVER_TOKEN: 'given', ERRAND_TEST_PARENT_SECRET: null, PATH: process.env.PATH });
    } finally {
      delete process.env.ERRAND_TEST_PARENT_SECRET;
      await hub.close();
    }
  });

  it('"tools" and "disabledTools" filter the offer, and unknown names are warned about', async () => {
    const log = capturingLogger();
    const hub = createMcpHub({
      servers: { n: stdioFixture({ tools: ['read_note', 'write_note', 'nope'], disabledTools: ['write_note'] }) },
      logger: log.logger,
    });
    try {
      await hub.start();
      expect(hub.toolsFor(slackChannel).map((t) => t.name)).toEqual(['n__read_note']);
      expect(log.text()).toContain('has no tools named "nope"');
    } finally {
      await hub.close();
    }
  });

  it('"channels" offers a server’s tools only in the listed channels; approval "always"/"never" override annotations', async () => {
    const hub = createMcpHub({
      servers: {
        here: stdioFixture({ channels: ['slack:C111'], tools: ['read_note'], approval: 'always' }),
        everywhere: stdioFixture({ tools: ['write_note'], approval: 'never' }),
      },
      logger: capturingLogger().logger,
    });
    try {
      await hub.start();
      expect(hub.toolsFor(slackChannel).map((t) => [t.name, t.needsApproval])).toEqual([
        ['here__read_note', true],
        ['everywhere__write_note', false],
      ]);
      expect(hub.toolsFor(otherChannel).map((t) => t.name)).toEqual(['everywhere__write_note']);
      expect(hub.toolsFor({ ...slackChannel, platform: 'discord' }).map((t) => t.name)).toEqual([
        'everywhere__write_note',
      ]);
    } finally {
      await hub.close();
    }
  });

  it('two tools with the same name after sanitising: the first is kept and an error names both', async () => {
    const log = capturingLogger();
    const hub = createMcpHub({
      servers: { d: stdioFixture({ tools: ['dotted.name', 'dotted_name'] }, { MCP_FIXTURE_DUPLICATES: '1' }) },
      logger: log.logger,
    });
    try {
      await hub.start();
      const tools = hub.toolsFor(slackChannel);
      expect(tools.map((t) => t.name)).toEqual(['d__dotted_name']);
      expect(await tools[0]!.call({}, toolContext(), new AbortController().signal)).toEqual({
        ok: true,
        content: 'dotted',
      });
      const error = log.lines.find((l) => l.level === 50 && l.msg.includes('d__dotted_name'));
      expect(error?.msg).toContain('"dotted.name" of server "d"');
      expect(error?.msg).toContain('"dotted_name" of server "d"');
    } finally {
      await hub.close();
    }
  });

  it('a disabled server is not started', async () => {
    const hub = createMcpHub({ servers: { off: stdioFixture({ disabled: true }) }, logger: capturingLogger().logger });
    await hub.start();
    expect(hub.status()).toEqual([{ name: 'off', state: 'disabled', reason: null, tools: 0, pid: null }]);
    expect(hub.toolsFor(slackChannel)).toEqual([]);
    await hub.close();
  });
});
