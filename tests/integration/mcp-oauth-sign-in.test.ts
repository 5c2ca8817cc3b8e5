import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { closeDatabase, openDatabase } from '../../src/db/client.js';
import { createSecretBox } from '../../src/secrets/secret-box.js';
import { createSqliteStore } from '../../src/composition/sqlite-store.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { registrationsMeet, startOAuthHarness, type OAuthHarness } from './oauth-harness.js';

let h: OAuthHarness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});
const start = async (...args: Parameters<typeof startOAuthHarness>) => (h = await startOAuthHarness(...args));

describe('signing a person in to an OAuth MCP server', () => {
  it('discovers the authorization server from the 401, registers dynamically, and signs in with PKCE S256 and the resource', async () => {
    const { fake, connections, signIn, publicUrl, connected } = await start({ fake: { challengeScope: 'read' } });
    const page = await signIn('slack:U1', { subject: 'ana', runId: 'run-7' });
    expect(page.status).toBe(200);
    expect(page.text).toContain('Connected — you can close this tab');

    // Discovery: the 401's resource_metadata, then the authorization server's RFC 8414 metadata.
    expect(fake.hits).toEqual(
      expect.arrayContaining([
        'POST /mcp',
        'GET /.well-known/oauth-protected-resource/mcp',
        'GET /.well-known/oauth-authorization-server',
        'POST /register',
      ]),
    );
    expect(fake.registrations).toEqual([
      expect.objectContaining({
        redirect_uris: [`${publicUrl}/oauth/callback`],
        token_endpoint_auth_method: 'none',
        client_name: 'Errand',
      }),
    ]);
    const q = page.authorizeUrl.searchParams;
    expect(q.get('code_challenge_method')).toBe('S256');
    expect(q.get('resource')).toBe(fake.mcpUrl);
    expect(q.get('scope')).toBe('read');
    const exchange = fake.tokenRequests.find((t) => t.grantType === 'authorization_code')!;
    expect(createHash('sha256').update(exchange.params.code_verifier!).digest('base64url')).toBe(
      q.get('code_challenge'),
    );
    expect(exchange).toMatchObject({
      clientAuth: 'none',
      params: { resource: fake.mcpUrl, redirect_uri: `${publicUrl}/oauth/callback` },
    });

    expect(connected).toEqual([{ principal: 'slack:U1', server: 'linear', runId: 'run-7' }]);
    const token = await connections.tokenFor('slack:U1', 'linear');
    expect(token.kind).toBe('token');
    expect(await connections.connectionsOf('slack:U1')).toEqual([
      { server: 'linear', account: 'ana@example.com', scopes: ['read'], since: h!.clock.now() },
    ]);
    // The token works on the MCP server and is ana's.
    const res = await fetch(fake.mcpUrl, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${(token as { accessToken: string }).accessToken}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(200);
    expect(fake.accepted.at(-1)?.subject).toBe('ana');
  });

  it('falls back to the well-known protected resource metadata when the 401 names none, and asks for scopes_supported', async () => {
    const { fake, signIn } = await start({
      fake: { resourceMetadataInHeader: false, scopesSupported: ['issues:read', 'issues:write'] },
    });
    const page = await signIn('slack:U1');
    expect(page.status).toBe(200);
    expect(fake.hits).toContain('GET /.well-known/oauth-protected-resource/mcp');
    expect(page.authorizeUrl.searchParams.get('scope')).toBe('issues:read issues:write');
  });

  it('asks for the configured scopes when the server names none', async () => {
    const { signIn } = await start({ settings: { scopes: ['read', 'admin'] } });
    expect((await signIn('slack:U1')).authorizeUrl.searchParams.get('scope')).toBe('read admin');
  });

  it('asks for no scope at all when neither the server nor the configuration names one', async () => {
    const { signIn } = await start();
    const page = await signIn('slack:U1');
    expect(page.status).toBe(200);
    expect(page.authorizeUrl.searchParams.has('scope')).toBe(false);
  });

  it('completes a sign-in after a restart between the Connect link and the callback', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'errand-oauth-restart-'));
    const file = join(dir, 'errand.db');
    const clock = new FakeClock();
    const box = createSecretBox(randomBytes(32));
    const before = openDatabase(file);
    const first = await startOAuthHarness({ store: createSqliteStore(before, clock).connections, clock, box });
    try {
      const outcome = await first.connections.tokenFor('slack:U1', 'linear', { runId: 'run-8' });
      if (outcome.kind !== 'authorize') throw new Error('expected a URL');
      const callback = await first.fake.consent(outcome.url);
      await first.web.close();
      closeDatabase(before);
      const after = openDatabase(file);
      const second = await startOAuthHarness({
        store: createSqliteStore(after, clock).connections,
        clock,
        box,
        sharedFake: first.fake,
        publicUrl: first.publicUrl,
      });
      try {
        expect((await second.browse(callback)).status).toBe(200);
        expect(second.connected).toEqual([{ principal: 'slack:U1', server: 'linear', runId: 'run-8' }]);
        expect((await second.connections.tokenFor('slack:U1', 'linear')).kind).toBe('token');
      } finally {
        await second.close();
        closeDatabase(after);
      }
    } finally {
      await first.fake.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('uses its Client ID Metadata Document when the authorization server supports it, and serves the document', async () => {
    const { fake, signIn, browse, publicUrl } = await start({ https: true, fake: { cimd: true } });
    const doc = JSON.parse((await browse(`${publicUrl}/oauth/client-metadata.json`)).text) as Record<string, unknown>;
    expect(doc).toMatchObject({
      client_id: 'https://errand.test/oauth/client-metadata.json',
      redirect_uris: ['https://errand.test/oauth/callback'],
      token_endpoint_auth_method: 'none',
    });
    const page = await signIn('slack:U1');
    expect(page.status).toBe(200);
    expect(page.authorizeUrl.searchParams.get('client_id')).toBe('https://errand.test/oauth/client-metadata.json');
    expect(fake.registrations).toEqual([]);
    expect(fake.tokenRequests.at(-1)).toMatchObject({
      clientId: 'https://errand.test/oauth/client-metadata.json',
      clientAuth: 'none',
    });
  });

  it('registers dynamically when the authorization server does not support client metadata documents, even with an https PUBLIC_URL', async () => {
    const { fake, signIn } = await start({ https: true });
    expect((await signIn('slack:U1')).status).toBe(200);
    expect(fake.registrations).toHaveLength(1);
  });

  it.each([
    ['client_secret_basic', ['client_secret_basic', 'client_secret_post', 'none'], 's3cret'],
    ['client_secret_post', ['client_secret_post', 'none'], 's3cret'],
    ['none', ['none'], undefined],
  ] as const)(
    'authenticates a configured client with %s, the method the server supports',
    async (method, authMethods, secret) => {
      const { fake, signIn } = await start({
        fake: {
          authMethods: [...authMethods],
          registration: false,
          preregistered: { clientId: 'errand-app', ...(secret ? { clientSecret: secret } : {}), method },
        },
        settings: { clientId: 'errand-app', clientSecret: secret ?? null },
      });
      const page = await signIn('slack:U1');
      expect(page.status).toBe(200);
      expect(page.authorizeUrl.searchParams.get('client_id')).toBe('errand-app');
      expect(fake.registrations).toEqual([]);
      expect(fake.tokenRequests).toEqual([
        expect.objectContaining({ grantType: 'authorization_code', clientId: 'errand-app', clientAuth: method }),
      ]);
    },
  );

  it("keeps two people apart: each call reaches the server with its own person's token", async () => {
    const { fake, connections, signIn } = await start();
    await signIn('slack:U1', { subject: 'ana' });
    await signIn('slack:U2', { subject: 'bo' });
    for (const [principal, subject] of [
      ['slack:U1', 'ana'],
      ['slack:U2', 'bo'],
    ] as const) {
      const t = await connections.tokenFor(principal, 'linear');
      if (t.kind !== 'token') throw new Error('expected a token');
      await fetch(fake.mcpUrl, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${t.accessToken}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(fake.accepted.at(-1)?.subject).toBe(subject);
    }
    expect((await connections.tokenFor('slack:U3', 'linear')).kind).toBe('authorize');
    expect(new Set(fake.accepted.map((a) => a.token)).size).toBe(2);
  });
});

describe('two sign-ins at once before Errand has a client of the server', () => {
  it('keeps one registration: both Connect links name the client stored first, and both people connect', async () => {
    const { fake, connections, browse } = await start({ service: { fetch: registrationsMeet(2) } });
    // Both find no client and register; the second registration stored to win left Ana's link naming the first
    // client while her code was exchanged under the other (invalid_grant: "the sign-in service failed").
    const [ana, bo] = await Promise.all([
      connections.tokenFor('slack:U1', 'linear', { runId: 'run-1' }),
      connections.tokenFor('slack:U2', 'linear', { runId: 'run-2' }),
    ]);
    if (ana.kind !== 'authorize' || bo.kind !== 'authorize') throw new Error('expected two sign-in URLs');
    expect(fake.registrations).toHaveLength(2);
    const clientOf = (url: string) => new URL(url).searchParams.get('client_id');
    expect(clientOf(ana.url)).toBe(clientOf(bo.url));
    for (const [url, subject] of [
      [ana.url, 'ana'],
      [bo.url, 'bo'],
    ] as const) {
      const page = await browse(await fake.consent(url, { subject }));
      expect(page.status).toBe(200);
      expect(page.text).toContain('Connected');
    }
    expect(fake.tokenRequests.map((t) => t.clientId)).toEqual([clientOf(ana.url), clientOf(ana.url)]);
    // A later sign-in reuses that client without registering again.
    expect(clientOf(((await connections.tokenFor('slack:U3', 'linear')) as { url: string }).url)).toBe(
      clientOf(ana.url),
    );
    expect(fake.registrations).toHaveLength(2);
  });
});

describe('the callback page, when a sign-in does not end in a connection', () => {
  it('says so in plain words when the person declines, and stores nothing', async () => {
    const { connections, signIn, notConnected, connected, sqlite } = await start();
    const page = await signIn('slack:U1', { answer: 'deny' });
    expect(page.status).toBe(200);
    expect(page.text).toContain('You declined access to linear, so nothing was connected');
    expect(notConnected).toEqual([{ kind: 'denied', principal: 'slack:U1', server: 'linear', runId: 'run-1' }]);
    expect(connected).toEqual([]);
    expect(await connections.connectionsOf('slack:U1')).toEqual([]);
    expect(sqlite!.db.$client.prepare('select count(*) from mcp_connections').pluck().get()).toBe(0);
  });

  it("lets only the browser's GET spend the link: a HEAD first leaves it working", async () => {
    const { connections, fake, browse, web } = await start();
    const outcome = await connections.tokenFor('slack:U1', 'linear');
    if (outcome.kind !== 'authorize') throw new Error('expected a URL');
    const callback = new URL(await fake.consent(outcome.url));
    const head = await fetch(`http://127.0.0.1:${web.port}${callback.pathname}${callback.search}`, { method: 'HEAD' });
    expect(head.status).toBe(405);
    const page = await browse(callback.href);
    expect(page.status).toBe(200);
  });

  it('refuses a reused link, and the second visit stores nothing more', async () => {
    const { connections, fake, browse } = await start();
    const outcome = await connections.tokenFor('slack:U1', 'linear');
    if (outcome.kind !== 'authorize') throw new Error('expected a URL');
    const callback = await fake.consent(outcome.url);
    expect((await browse(callback)).status).toBe(200);
    await connections.disconnect('slack:U1', 'linear');
    const again = await browse(callback);
    expect(again.status).toBe(400);
    expect(again.text).toContain('This link was already used');
    expect(await connections.connectionsOf('slack:U1')).toEqual([]);
    expect(fake.tokenRequests).toHaveLength(1);
  });

  it('refuses a link older than 10 minutes without exchanging its code', async () => {
    const { connections, fake, browse, clock, notConnected } = await start();
    const outcome = await connections.tokenFor('slack:U1', 'linear', { runId: 'run-2' });
    if (outcome.kind !== 'authorize') throw new Error('expected a URL');
    const callback = await fake.consent(outcome.url);
    clock.advance(10 * 60_000);
    const page = await browse(callback);
    expect(page.status).toBe(400);
    expect(page.text).toContain('This link has expired');
    expect(fake.tokenRequests).toEqual([]);
    expect(notConnected).toEqual([{ kind: 'expired', principal: 'slack:U1', server: 'linear', runId: 'run-2' }]);
    expect(await connections.connectionsOf('slack:U1')).toEqual([]);
  });

  it('refuses a state it never issued', async () => {
    const { browse, publicUrl, fake } = await start();
    const page = await browse(`${publicUrl}/oauth/callback?code=abc&state=forged`);
    expect(page.status).toBe(400);
    expect(page.text).toContain('This link is not valid');
    expect(fake.tokenRequests).toEqual([]);
  });

  it('says the sign-in service failed when the code exchange errors, stores nothing, and keeps secrets out of the page and the log', async () => {
    const { connections, fake, browse, log } = await start();
    const outcome = await connections.tokenFor('slack:U1', 'linear');
    if (outcome.kind !== 'authorize') throw new Error('expected a URL');
    const callback = await fake.consent(outcome.url);
    fake.failTokenRequests(5);
    const page = await browse(callback);
    expect(page.status).toBe(502);
    expect(page.text).toContain('The sign-in service of linear reported an error');
    expect(await connections.connectionsOf('slack:U1')).toEqual([]);
    const code = new URL(callback).searchParams.get('code')!;
    const state = new URL(callback).searchParams.get('state')!;
    for (const text of [page.text, JSON.stringify(log.lines)]) {
      expect(text).not.toContain(code);
      expect(text).not.toContain(state);
    }
    expect(log.lines.some((l) => /exchanging a sign-in code failed/.test(String(l.msg)))).toBe(true);
  });

  it('reports an authorization server error sent back to the callback as a failure', async () => {
    const { connections, browse, publicUrl, notConnected } = await start();
    const outcome = await connections.tokenFor('slack:U1', 'linear');
    if (outcome.kind !== 'authorize') throw new Error('expected a URL');
    const state = new URL(outcome.url).searchParams.get('state')!;
    const page = await browse(`${publicUrl}/oauth/callback?error=server_error&state=${state}`);
    expect(page.status).toBe(502);
    expect(notConnected.map((o) => o.kind)).toEqual(['failed']);
  });
});
