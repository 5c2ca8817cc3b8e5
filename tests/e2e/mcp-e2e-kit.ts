import type { ManagedToolSource } from '../../src/app.js';
import { createMcpHub, type McpHub } from '../../src/composition/mcp-hub.js';
import type { RecordedRequest } from '../fakes/fake-openai.js';
import { capturingLogger, eventsFile, stdioFixture } from '../fixtures/mcp/mcp-test-kit.js';
import { toolResultJson } from '../support/tool-result-json.js';

/** One stdio fixture server for a whole test file, and the file its tools record events in. */
export interface SharedFixtureServer {
  readonly hub: McpHub;
  /** Events the fixture recorded so far ("wrote k=v", "started slow", "cancelled slow"). */
  events(): string[];
  /** The hub as each test's app sees it: offered tools only, so stopping an app leaves the server running. */
  readonly tools: ManagedToolSource;
  close(): Promise<void>;
}

/** Starts the real MCP hub on the stdio fixture server, named `notes` (tools `notes__read_note`, `notes__write_note`, `notes__slow` …). */
export async function startSharedFixtureServer(): Promise<SharedFixtureServer> {
  const file = eventsFile();
  const hub = createMcpHub({
    servers: { notes: stdioFixture({}, { MCP_FIXTURE_EVENTS: file.path }) },
    logger: capturingLogger().logger,
  });
  await hub.start();
  if (hub.status()[0]?.state !== 'connected')
    throw new Error(`the fixture MCP server did not start: ${JSON.stringify(hub.status())}`);
  return { hub, events: file.read, tools: { toolsFor: (c) => hub.toolsFor(c) }, close: () => hub.close() };
}

/** The tool results a model request carries, parsed, oldest first. */
export function toolResults(req: RecordedRequest): unknown[] {
  return req.messages.filter((m) => m.role === 'tool').map((m) => toolResultJson(m.content) as unknown);
}

/** How many times the fixture recorded `event`. */
export const count = (events: readonly string[], event: string): number => events.filter((e) => e === event).length;

/** A model step calling the writing tool, which needs approval under the default `approval: "auto"`. */
export const writeStep = (text: string) => ({
  toolCalls: [{ name: 'notes__write_note', arguments: { key: 'plan', text } }],
});
