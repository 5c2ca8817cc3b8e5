import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { createOAuthConnections, type OAuthConnections } from '../../src/sign-in/mcp/oauth-connections.js';
import { createSecretBox } from '../../src/secrets/secret-box.js';
import { startOAuthHarness, type OAuthHarness } from './oauth-harness.js';

let h: OAuthHarness | null = null;
afterEach(async () => {
  if (h) {
    // Whatever a test did, no token the authorization server issued ever reached the log.
    const logged = JSON.stringify(h.log.lines);
    for (const { accessToken: at, refreshToken: rt } of h.fake.issued) {
      expect(logged).not.toContain(at);
      expect(logged).not.toContain(rt);
    }
  }
  await h?.close();
  h = null;
});
const start = async (...args: Parameters<typeof startOAuthHarness>) => (h = await startOAuthHarness(...args));

const HOUR = 3600_000;

async function accessToken(connections: OAuthConnections, principal: string): Promise<string> {
  const t = await connections.tokenFor(principal, 'linear');
  if (t.kind !== 'token') throw new Error(`expected a token, got ${JSON.stringify(t)}`);
  return t.accessToken;
}

/** A JSON-RPC call to the protected MCP server with a bearer token, as the transport would send it. */
function callMcp(url: string, token: string, method: string, params: Record<string, unknown> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
}

describe('tokens at rest and in use', () => {
  it('keeps tokens, the PKCE verifier and a registered secret encrypted in the database', async () => {
    const { fake, connections, sqlite } = await start({
      fake: { authMethods: ['client_secret_post'], registrationSecrets: true },
    });
    const outcome = await connections.tokenFor('slack:U1', 'linear');
    if (outcome.kind !== 'authorize') throw new Error('expected a URL');
    const raw = sqlite!.db.$client;
    const pending = JSON.stringify(raw.prepare('select * from mcp_oauth_pending').all());
    const client = JSON.stringify(raw.prepare('select * from mcp_oauth_clients').all());
    expect(client).toContain('"server":"linear"');
    await fake.consent(outcome.url).then((cb) => h!.browse(cb));
    const exchange = fake.tokenRequests[0]!;
    // The sealed secret opened again for the exchange, and neither it nor the verifier is readable in the rows.
    expect(exchange).toMatchObject({
      clientAuth: 'client_secret_post',
      params: { client_secret: expect.stringMatching(/^sec_/) },
    });
    expect(client).not.toContain(exchange.params.client_secret!);
    expect(pending).toContain('"state"');
    expect(pending).not.toContain(exchange.params.code_verifier!);
    const { accessToken: at, refreshToken: rt } = fake.issued[0]!;
    const rows = JSON.stringify(raw.prepare('select * from mcp_connections').all());
    expect(rows).toContain('"principal":"slack:U1"');
    expect(rows).not.toContain(at);
    expect(rows).not.toContain(rt);
    expect(await accessToken(connections, 'slack:U1')).toBe(at);
  });

  it('asks the person again when ERRAND_SECRET_KEY changed and the stored tokens no longer open', async () => {
    const { fake, signIn, sqlite, log } = await start();
    await signIn('slack:U1');
    const rekeyed = createOAuthConnections({
      store: sqlite!.connections,
      box: createSecretBox(randomBytes(32)),
      clock: h!.clock,
      publicUrl: h!.publicUrl,
      servers: [{ name: 'linear', url: fake.mcpUrl, settings: { scopes: null, clientId: null, clientSecret: null } }],
      logger: log.logger,
    });
    expect((await rekeyed.tokenFor('slack:U1', 'linear')).kind).toBe('authorize');
    expect(await rekeyed.connectionsOf('slack:U1')).toEqual([]);
    // The registration did not open either: Errand registered again rather than failing.
    expect(fake.registrations).toHaveLength(2);
  });

  it('refreshes an expired token instead of asking the person again, and keeps "since"', async () => {
    const { fake, connections, signIn, clock } = await start();
    await signIn('slack:U1');
    const since = clock.now();
    const first = await accessToken(connections, 'slack:U1');
    clock.advance(HOUR);
    const second = await accessToken(connections, 'slack:U1');
    expect(second).not.toBe(first);
    expect(second).toBe(fake.issued[1]!.accessToken);
    expect(fake.tokenRequests.map((t) => t.grantType)).toEqual(['authorization_code', 'refresh_token']);
    expect(fake.authorizeRequests).toHaveLength(1);
    expect((await connections.connectionsOf('slack:U1'))[0]?.since).toBe(since);
    // Still good: no new request.
    expect(await accessToken(connections, 'slack:U1')).toBe(second);
    expect(fake.tokenRequests).toHaveLength(2);
    expect(h!.metrics.oauth.map((m) => `${m.server}:${m.outcome}`)).toEqual([
      'linear:authorize',
      'linear:connected',
      'linear:token',
      'linear:refreshed',
      'linear:token',
      'linear:token',
    ]);
  });

  it('retries a refresh the authorization server failed for a moment, and gives up for now (keeping the connection) when it keeps failing', async () => {
    const { fake, connections, signIn, clock } = await start();
    await signIn('slack:U1');
    clock.advance(HOUR);
    fake.failTokenRequests(1);
    expect(await accessToken(connections, 'slack:U1')).toBe(fake.issued[1]!.accessToken);
    clock.advance(HOUR);
    fake.failTokenRequests(10);
    expect(await connections.tokenFor('slack:U1', 'linear')).toEqual({
      kind: 'unavailable',
      reason: 'The sign-in service of linear is not reachable right now.',
    });
    expect(fake.tokenRequests.filter((t) => t.grantType === 'refresh_token')).toHaveLength(5);
    expect(fake.authorizeRequests).toHaveLength(1);
    expect(await connections.connectionsOf('slack:U1')).toHaveLength(1);
    // Through the SDK's transport the call fails with that reason, rather than asking the person to sign in again.
    const client = new Client({ name: 'errand-test', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(fake.mcpUrl), {
      authProvider: connections.authProvider('slack:U1', 'linear'),
    });
    await expect(client.connect(transport)).rejects.toThrow(
      'The sign-in service of linear is not reachable right now.',
    );
    expect(fake.authorizeRequests).toHaveLength(1);
  });

  it('asks the person again when the refresh token is refused, and forgets the dead connection', async () => {
    const { fake, connections, signIn, clock } = await start();
    await signIn('slack:U1');
    clock.advance(HOUR);
    // Spend the refresh token elsewhere (rotation): Errand's copy is now refused.
    const form = new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: fake.issued[0]!.refreshToken,
      client_id: fake.tokenRequests[0]!.clientId!,
    });
    await fetch(`${fake.issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
    });
    const outcome = await connections.tokenFor('slack:U1', 'linear', { runId: 'run-9' });
    expect(outcome.kind).toBe('authorize');
    expect(await connections.connectionsOf('slack:U1')).toEqual([]);
  });

  it('answers a 401 on a token it thought good with a refresh, then with a new sign-in', async () => {
    const { fake, connections, signIn } = await start();
    await signIn('slack:U1');
    const refused = await callMcp(fake.mcpUrl, 'not-a-token', 'tools/list');
    expect(refused.status).toBe(401);
    const refreshed = await connections.answerChallenge('slack:U1', 'linear', refused, 'run-3');
    expect(refreshed).toEqual({ kind: 'token', accessToken: fake.issued[1]!.accessToken });
  });

  it('steps up on 403 insufficient_scope: a new sign-in asking for the wider scope, after which the call goes through', async () => {
    const { fake, connections, browse } = await start({ fake: { challengeScope: 'read' } });
    fake.requireScope('write_note', 'write');
    await h!.signIn('slack:U1');
    const denied = await callMcp(fake.mcpUrl, await accessToken(connections, 'slack:U1'), 'tools/call', {
      name: 'write_note',
      arguments: { text: 'x' },
    });
    expect(denied.status).toBe(403);
    const stepUp = await connections.answerChallenge('slack:U1', 'linear', denied, 'run-4');
    if (stepUp.kind !== 'authorize') throw new Error(`expected a step-up URL, got ${stepUp.kind}`);
    expect(new URL(stepUp.url).searchParams.get('scope')?.split(' ').sort()).toEqual(['read', 'write']);
    expect((await browse(await fake.consent(stepUp.url))).status).toBe(200);
    expect((await connections.connectionsOf('slack:U1'))[0]?.scopes.slice().sort()).toEqual(['read', 'write']);
    const allowed = await callMcp(fake.mcpUrl, await accessToken(connections, 'slack:U1'), 'tools/call', {
      name: 'write_note',
      arguments: { text: 'x' },
    });
    expect(allowed.status).toBe(200);
  });

  it("gives the SDK's transport a provider: the principal's token, a Connect URL when there is none, a step-up URL on 403", async () => {
    const { fake, connections, browse } = await start({ fake: { challengeScope: 'read' } });
    fake.requireScope('write_note', 'write');
    const connect = async () => {
      const provider = connections.authProvider('slack:U1', 'linear', 'run-5');
      const client = new Client({ name: 'errand-test', version: '1' });
      const error = await client
        .connect(new StreamableHTTPClientTransport(new URL(fake.mcpUrl), { authProvider: provider }))
        .then(
          () => null,
          (e: unknown) => e,
        );
      return { provider, client, error };
    };
    const first = await connect();
    expect(first.error).toBeInstanceOf(UnauthorizedError);
    expect(first.provider.authorizationUrl?.searchParams.get('scope')).toBe('read');
    expect((await browse(await fake.consent(first.provider.authorizationUrl!.href, { subject: 'ana' }))).status).toBe(
      200,
    );
    expect(h!.connected).toEqual([{ principal: 'slack:U1', server: 'linear', runId: 'run-5' }]);

    const second = await connect();
    expect(second.error).toBeNull();
    const result = await second.client.callTool({ name: 'whoami', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'ana' }]);
    await expect(second.client.callTool({ name: 'write_note', arguments: { text: 'x' } })).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    expect(second.provider.authorizationUrl?.searchParams.get('scope')?.split(' ').sort()).toEqual(['read', 'write']);
    await second.client.close();
  });

  it('tells the model the server is unavailable when no authorization server can be found, logging the URL once', async () => {
    const { connections, log } = await start({
      service: {
        servers: [
          {
            name: 'linear',
            url: 'http://127.0.0.1:9/mcp',
            settings: { scopes: null, clientId: null, clientSecret: null },
          },
        ],
      },
    });
    for (let i = 0; i < 2; i++) expect((await connections.tokenFor('slack:U1', 'linear')).kind).toBe('unavailable');
    const lines = log.lines.filter((l) => String(l.msg).includes('could not be discovered'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ server: 'linear', url: 'http://127.0.0.1:9/mcp' });
  });
});
