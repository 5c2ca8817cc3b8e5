import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpHub, type McpHub } from '../../src/composition/mcp-hub.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { waitFor } from '../fakes/wait-for.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp/http-fixture-server.js';
import { capturingLogger, settings, slackChannel, toolContext } from '../fixtures/mcp/mcp-test-kit.js';

const call = (hub: McpHub, name: string, args: Record<string, unknown> = {}, signal = new AbortController().signal) => {
  const tool = hub.toolsFor(slackChannel).find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  return tool.call(args, toolContext(), signal);
};

describe('MCP client over Streamable HTTP', () => {
  let fixture: HttpFixture;
  let hub: McpHub;

  beforeAll(async () => {
    fixture = await startHttpFixture({ mode: 'streamable', authorization: 'Bearer good' });
    hub = createMcpHub({
      servers: { docs: settings({ url: fixture.url, headers: { Authorization: 'Bearer good' } }) },
      logger: capturingLogger().logger,
    });
    await hub.start();
  });
  afterAll(async () => {
    await hub.close();
    await fixture.close();
  });

  it('connects with the configured headers and calls tools', async () => {
    expect(hub.status()[0]).toMatchObject({ name: 'docs', state: 'connected', pid: null });
    expect(await call(hub, 'docs__read_note', { key: 'a' })).toEqual({ ok: true, content: 'note a: buy milk' });
    expect(await call(hub, 'docs__fail')).toEqual({ ok: false, error: 'the disk is full' });
  });

  it('aborting the run cancels the call on the server', async () => {
    const stop = new AbortController();
    const pending = call(hub, 'docs__slow', {}, stop.signal);
    await waitFor(() => fixture.events.includes('started slow'), 10_000, 'the slow tool to start');
    stop.abort();
    expect(await pending).toEqual({ ok: false, error: 'docs__slow was cancelled: the run was stopped.' });
    await waitFor(() => fixture.events.includes('cancelled slow'), 10_000, 'the server to see the cancellation');
  });

  it('follows notifications/tools/list_changed', async () => {
    await call(hub, 'docs__add_tool');
    await waitFor(() => hub.toolsFor(slackChannel).some((t) => t.name === 'docs__late'), 10_000, 'the new tool');
  });

  it('a wrong token is reported as HTTP 401 from the URL, and the server skipped', async () => {
    const log = capturingLogger();
    const bad = createMcpHub({
      servers: { docs: settings({ url: fixture.url, headers: { Authorization: 'Bearer bad' } }) },
      logger: log.logger,
    });
    await bad.start();
    expect(bad.status()[0]).toMatchObject({
      state: 'failed',
      reason: `HTTP 401 from ${fixture.url} (check the headers, e.g. Authorization)`,
    });
    expect(bad.toolsFor(slackChannel)).toEqual([]);
    await bad.close();
  });

  it('a URL where nothing listens is reported as unreachable', async () => {
    const gone = await startHttpFixture({ mode: 'streamable' });
    const url = gone.url;
    await gone.close();
    const hub2 = createMcpHub({ servers: { gone: settings({ url }) }, logger: capturingLogger().logger });
    await hub2.start();
    expect(hub2.status()[0]).toMatchObject({ state: 'failed', reason: `cannot reach ${url} (ECONNREFUSED)` });
    await hub2.close();
  });
});

describe('an HTTP session that is lost', () => {
  it('the call fails clearly, and the client reconnects after the backoff', async () => {
    const fixture = await startHttpFixture({ mode: 'streamable' });
    const clock = new FakeClock();
    const hub = createMcpHub({
      servers: { docs: settings({ url: fixture.url }) },
      logger: capturingLogger().logger,
      clock,
      backoff: () => 1000,
    });
    try {
      await hub.start();
      await fixture.forgetSessions();
      const lost = await call(hub, 'docs__echo', { text: 'hello?' });
      expect(lost).toEqual({
        ok: false,
        error: expect.stringMatching(
          /^The MCP server "docs" stopped while running docs__echo \(it crashed: HTTP 404 from http:\/\/127\.0\.0\.1:\d+\/mcp\); it is being restarted/,
        ),
      });
      expect(hub.status()[0]!.state).toBe('restarting');
      clock.advance(1000);
      await waitFor(() => hub.status()[0]!.state === 'connected', 10_000, 'the reconnection');
      expect(await call(hub, 'docs__echo', { text: 'again' })).toEqual({ ok: true, content: 'again' });
    } finally {
      await hub.close();
      await fixture.close();
    }
  });
});

describe('MCP client against an old HTTP+SSE server', () => {
  it('falls back to SSE when Streamable HTTP is not supported, and "type": "sse" goes there directly', async () => {
    const fixture = await startHttpFixture({ mode: 'sse-only' });
    const log = capturingLogger();
    const hub = createMcpHub({
      servers: {
        old: settings({ url: fixture.url }),
        forced: settings({ url: fixture.url, type: 'sse', tools: ['echo'] }),
      },
      logger: log.logger,
    });
    try {
      await hub.start();
      expect(hub.status().map((s) => s.state)).toEqual(['connected', 'connected']);
      expect(log.text()).toContain('trying the older HTTP+SSE transport');
      expect(await call(hub, 'old__echo', { text: 'over sse' })).toEqual({ ok: true, content: 'over sse' });
      expect(await call(hub, 'forced__echo', { text: 'forced' })).toEqual({ ok: true, content: 'forced' });
    } finally {
      await hub.close();
      await fixture.close();
    }
  });
});
