import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpHub, type McpHub } from '../../src/composition/mcp-hub.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { waitFor } from '../fakes/wait-for.js';
import { capturingLogger, eventsFile, slackChannel, stdioFixture, toolContext } from '../fixtures/mcp/mcp-test-kit.js';

describe('MCP progress and server log messages', () => {
  const events = eventsFile();
  const log = capturingLogger();
  let hub: McpHub;

  beforeAll(async () => {
    hub = createMcpHub({
      servers: { notes: stdioFixture({ timeoutSeconds: 5 }, { MCP_FIXTURE_EVENTS: events.path }) },
      logger: log.logger,
      clock: new FakeClock(),
    });
    await hub.start();
  });
  afterAll(() => hub.close());

  const count = () => hub.toolsFor(slackChannel).find((t) => t.name === 'notes__count')!;

  it('a call whose context listens asks for progress with a progressToken and hears each notifications/progress as text', async () => {
    const heard: string[] = [];
    // A pause after each notification: the SDK drops progress that arrives in the same read as the call's result (its
    // notification handlers run a tick later, after the result closed the request), which is harmless for a card.
    const result = await count().call(
      { n: 3, pauseMs: 30 },
      { ...toolContext(), reportProgress: (text) => heard.push(text) },
      new AbortController().signal,
    );
    expect(result).toEqual({ ok: true, content: 'counted to 3' });
    expect(heard).toEqual(['1/3 counted 1', '2/3 counted 2', '3/3 counted 3']);
    expect(events.read()).toContain('count with a progress token');
  });

  it('a call nobody listens to carries no progressToken', async () => {
    await count().call({ n: 2 }, toolContext(), new AbortController().signal);
    expect(events.read().at(-1)).toBe('count without a progress token');
  });

  it("a server's log message lands in Errand's log at its level", async () => {
    await count().call({ n: 1 }, toolContext(), new AbortController().signal);
    await waitFor(() => log.lines.some((l) => String(l.msg).includes('counted to 1')), 5_000, 'the server log line');
    const line = log.lines.find((l) => String(l.msg).includes('counted to 1'))!;
    expect(line).toMatchObject({
      level: 40,
      mcpLevel: 'warning',
      mcpLogger: 'counter',
      msg: 'MCP server log: counted to 1, which took a while',
    });
  });
});
