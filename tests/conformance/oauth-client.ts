/**
 * Errand's MCP OAuth client as a command for the MCP conformance suite (`@modelcontextprotocol/conformance`,
 * client scenarios `auth/*`): `conformance client --command "npx tsx tests/conformance/oauth-client.ts" --suite auth`.
 * The suite appends the server URL; MCP_CONFORMANCE_CONTEXT carries a pre-registered client when the scenario has one.
 * It signs in as a person would (the suite's authorization endpoint approves at once and redirects), through the
 * same OAuthConnections, provider and callback completion as Errand, then lists and calls tools.
 *
 * The suite is not a dependency (it is run by hand, like the benchmarks' outside harness): install it apart
 * (`npm install --prefix /tmp/conformance @modelcontextprotocol/conformance`). It imports `fs.globSync`, which
 * Node 20 lacks; on Node 20 its tier-check report (the only user) must be stubbed in its dist/index.js.
 * PUBLIC_URL here is https://conformance-test.local, so the Client ID Metadata Document URL is
 * https://conformance-test.local/oauth/client-metadata.json (DESIGN.md's path); the suite expects the document at
 * the root and answers the auth/basic-cimd scenario with a warning, not a failure.
 */
import { randomBytes } from 'node:crypto';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { systemClock } from '../../src/clock.js';
import { openDatabase } from '../../src/db/client.js';
import { createLogger } from '../../src/logger.js';
import { createOAuthConnections } from '../../src/sign-in/mcp/oauth-connections.js';
import { createSecretBox } from '../../src/secrets/secret-box.js';
import { createSqliteStore } from '../../src/composition/sqlite-store.js';

const url = process.argv.at(-1)!;
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as {
  client_id?: string;
  client_secret?: string;
};
const store = createSqliteStore(openDatabase(':memory:'), systemClock);
const connections = createOAuthConnections({
  store: store.connections,
  box: createSecretBox(randomBytes(32)),
  clock: systemClock,
  publicUrl: process.env.CONFORMANCE_PUBLIC_URL ?? 'https://conformance-test.local',
  servers: [
    {
      name: 'server',
      url,
      settings: { scopes: null, clientId: context.client_id ?? null, clientSecret: context.client_secret ?? null },
    },
  ],
  logger: createLogger('warn', process.stderr),
});

/** What the person's browser does: opens the link, and the authorization server sends it back with a code. */
async function approve(authorizationUrl: URL): Promise<void> {
  const res = await fetch(authorizationUrl, { redirect: 'manual' });
  const location = res.headers.get('location');
  if (location === null) throw new Error(`the authorization endpoint answered ${res.status}`);
  const outcome = await connections.completeAuthorization(new URL(location).searchParams);
  if (outcome.kind !== 'connected') throw new Error(`the sign-in ended ${outcome.kind}`);
}

const MAX_SIGN_INS = 3;
let signIns = 0;
let done = false;
while (!done) {
  const provider = connections.authProvider('conformance:person', 'server', 'run-1');
  const client = new Client({ name: 'errand', version: '0.1.0' });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: provider }));
    const { tools } = await client.listTools();
    for (const tool of tools) await client.callTool({ name: tool.name, arguments: {} });
    done = true;
  } catch (err) {
    if (!(err instanceof UnauthorizedError) || provider.authorizationUrl === null || ++signIns > MAX_SIGN_INS)
      throw err;
    await approve(provider.authorizationUrl);
  } finally {
    await client.close().catch(() => {});
  }
}
await store.close();
