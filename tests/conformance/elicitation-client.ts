/**
 * Errand's MCP client with its elicitation path, as a command for the MCP conformance suite
 * (`@modelcontextprotocol/conformance`, client scenario `elicitation-sep1034-client-defaults`):
 * `conformance client --command "npx tsx tests/conformance/elicitation-client.ts" --scenario elicitation-sep1034-client-defaults`.
 * The suite appends the server URL. The server is reached through Errand's own MCP hub (capabilities,
 * routing of the question to the call in flight), the question goes to an ElicitationDesk, and the person
 * accepts every form without touching a field (SurfaceSink.onElicitation `submit` with no values): the
 * suite checks that the defaults of the requested schema come back, typed.
 *
 * Like oauth-client.ts, the suite is not a dependency: install it apart
 * (`npm install --prefix /tmp/conformance @modelcontextprotocol/conformance`); on Node 20 its `fs.globSync`
 * import (used only by `tier-check`) must be stubbed in its dist/index.js.
 */
import type { PostIntent } from '../../src/agent/agent-types.js';
import { parseElicitationActionId } from '../../src/chat/elicitation-form.js';
import { systemClock } from '../../src/clock.js';
import { openDatabase } from '../../src/db/client.js';
import { createLogger } from '../../src/logger.js';
import { createSqliteStore } from '../../src/composition/sqlite-store.js';
import { ElicitationDesk } from '../../src/questions/mcp/elicitation-desk.js';
import { createMcpHub } from '../../src/composition/mcp-hub.js';
import { mcpServerSchema } from '../../src/settings/mcp-server-settings.js';

const url = process.argv.at(-1)!;
const logger = createLogger('warn', process.stderr);
const conversation = { platform: 'conformance', workspace: 'w', channel: 'c', thread: null };
let desk: ElicitationDesk | null = null;

/** The thread: the question's post is read and its Answer pressed, the form sent as it was shown. */
const posts = {
  async record(_conversationId: string, _runId: string | null, intent: PostIntent) {
    const answer = intent.buttons?.map((b) => parseElicitationActionId(b.actionId)).find((r) => r?.op === 'answer');
    if (answer) {
      setImmediate(() => {
        void (async () => {
          const actor = { id: answer.id, platform: conversation.platform, userId: 'person' };
          const opened = await desk!.handle({ kind: 'open', ...actor });
          if (opened.kind !== 'form') throw new Error(`the form did not open: ${JSON.stringify(opened)}`);
          const sent = await desk!.handle({ kind: 'submit', ...actor, values: {} });
          if (sent.kind !== 'answered') throw new Error(`the form was not sent: ${JSON.stringify(sent)}`);
        })().catch((err: unknown) => logger.error({ err }, 'answering the form failed'));
      });
    }
    return [1];
  },
  delivered: async () => 'm1',
  recordEdit: async () => {},
  recordEphemeral: async () => {},
  piecesOf: (_c: string, intent: PostIntent) => [{ text: intent.text }],
};

// Questions are kept as rows, as in Errand: an in-memory database is enough for one run of the suite.
const store = createSqliteStore(openDatabase(':memory:'), systemClock, { ownsDb: true });
desk = new ElicitationDesk({
  posts,
  store: store.elicitations,
  clock: systemClock,
  askTimeoutMs: 60_000,
  logger,
  privateIn: () => true,
});
const hub = createMcpHub({ servers: { server: mcpServerSchema.parse({ url }) }, logger });
hub.bindElicitation(desk);
await hub.start();
const context = {
  conversationId: 'c1',
  conversation,
  runId: 'r1',
  taskId: null,
  userId: 'person',
  timezone: 'UTC',
  now: () => Date.now(),
};
for (const tool of hub.toolsFor(conversation)) {
  const result = await tool.call({}, context, new AbortController().signal);
  process.stdout.write(`${tool.name}: ${JSON.stringify(result)}\n`);
}
await hub.close();
await store.close();
