import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

/** How the fake authorization server and its protected MCP server behave (each test picks what it checks). */
export interface FakeOAuthOptions {
  /** `token_endpoint_auth_methods_supported` (default: all three). */
  readonly authMethods?: readonly ('client_secret_basic' | 'client_secret_post' | 'none')[];
  /** Advertise `client_id_metadata_document_supported` and accept https client ids, read through `fetchClientMetadata`. */
  readonly cimd?: boolean;
  /** How the fake reads a Client ID Metadata Document (the test points it at Errand's web endpoint). */
  readonly fetchClientMetadata?: (url: string) => Promise<unknown>;
  /** Offer Dynamic Client Registration (default true). */
  readonly registration?: boolean;
  /** Registrations get a client secret and must use `client_secret_post`, whatever the client asked for. */
  readonly registrationSecrets?: boolean;
  /** A client registered by hand, with the one way it must authenticate at the token endpoint. */
  readonly preregistered?: {
    readonly clientId: string;
    readonly clientSecret?: string;
    readonly method: 'client_secret_basic' | 'client_secret_post' | 'none';
  };
  /** The protected resource metadata's `scopes_supported`. */
  readonly scopesSupported?: readonly string[];
  /** The 401's `scope` (none when unset). */
  readonly challengeScope?: string;
  /** Whether the 401 names `resource_metadata` (default true); without it the client must try the well-known URL. */
  readonly resourceMetadataInHeader?: boolean;
  /** `expires_in` of access tokens (default 3600). */
  readonly accessTokenSeconds?: number;
  /** How the n-th dynamic registration (from 0) names its client (default a random `dcr_…`, base64url). */
  readonly clientIdOf?: (n: number) => string;
}

/** One token request as the fake saw it. */
export interface TokenRequest {
  readonly grantType: string;
  readonly clientId: string | null;
  readonly clientAuth: 'client_secret_basic' | 'client_secret_post' | 'none';
  readonly params: Record<string, string>;
}

interface Client {
  readonly clientId: string;
  readonly clientSecret?: string;
  readonly method: string;
  readonly redirectUris: readonly string[];
}

interface Grant {
  readonly clientId: string;
  readonly subject: string;
  readonly scopes: string[];
  readonly resource: string | null;
}

export interface FakeOAuth {
  /** The protected MCP server (Streamable HTTP). */
  readonly mcpUrl: string;
  /** The authorization server's issuer (its origin). */
  readonly issuer: string;
  /** What the authorization endpoint was asked, one entry per visit. */
  readonly authorizeRequests: URLSearchParams[];
  readonly tokenRequests: TokenRequest[];
  /** Dynamic registrations, as sent. */
  readonly registrations: Record<string, unknown>[];
  /** Tokens the MCP server accepted, in order (whose call reached it). */
  readonly accepted: { readonly subject: string; readonly token: string }[];
  /** Every path requested on either server, `METHOD origin-less-path`. */
  readonly hits: string[];
  /** Every token pair the token endpoint issued, in order. */
  readonly issued: { readonly accessToken: string; readonly refreshToken: string }[];
  /**
   * Plays the browser: opens the authorization URL as `subject`, who approves or denies, and returns where the
   * authorization server sends the browser back (the callback URL with code or error, and state).
   */
  consent(authorizationUrl: string, options?: { subject?: string; answer?: 'approve' | 'deny' }): Promise<string>;
  /** The next `n` token requests answer HTTP 500 `server_error`. */
  failTokenRequests(n: number): void;
  /** Makes the token endpoint take this long before answering (a slow refresh). */
  delayTokenRequests(ms: number): void;
  /** Tool calls to `tool` need `scope` (else 403 insufficient_scope). */
  requireScope(tool: string, scope: string): void;
  /** Calls of `tool` wait (the server working on them) until `release()`; `waiting()`: how many wait now. */
  holdCalls(tool: string): { release(): void; waiting(): number };
  close(): Promise<void>;
}

const b64url = (buf: Buffer) => buf.toString('base64url');
const token = (prefix: string) => `${prefix}_${b64url(randomBytes(18))}`;

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  void res
    .writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers })
    .end(JSON.stringify(body));

/**
 * A local OAuth 2.1 authorization server (metadata, DCR, CIMD, authorize with PKCE S256, tokens with rotating
 * refresh tokens, three client authentication methods) and an MCP server (the SDK's server over Streamable
 * HTTP) that accepts only its bearer tokens, answering 401 and 403 with `WWW-Authenticate` as the MCP
 * authorization specification has it. Both on 127.0.0.1, port 0.
 */
export async function startFakeOAuth(options: FakeOAuthOptions = {}): Promise<FakeOAuth> {
  const clients = new Map<string, Client>();
  const codes = new Map<string, Grant & { challenge: string; redirectUri: string }>();
  const accessTokens = new Map<string, Grant>();
  const refreshTokens = new Map<string, Grant>();
  const authorizeRequests: URLSearchParams[] = [];
  const tokenRequests: TokenRequest[] = [];
  const registrations: Record<string, unknown>[] = [];
  const accepted: { subject: string; token: string }[] = [];
  const hits: string[] = [];
  const issued: { accessToken: string; refreshToken: string }[] = [];
  const requiredScopes = new Map<string, string>();
  const holds = new Map<string, { promise: Promise<void>; count: number }>();
  let failures = 0;
  let delayMs = 0;
  let decision: { subject: string; answer: 'approve' | 'deny' } = { subject: 'ana', answer: 'approve' };
  const authMethods = options.authMethods ?? ['client_secret_basic', 'client_secret_post', 'none'];
  if (options.preregistered) {
    const p = options.preregistered;
    clients.set(p.clientId, {
      clientId: p.clientId,
      ...(p.clientSecret ? { clientSecret: p.clientSecret } : {}),
      method: p.method,
      redirectUris: [],
    });
  }

  const as = createServer();
  const mcp = createServer();
  const issuer = await listen(as);
  const mcpOrigin = await listen(mcp);
  const mcpUrl = `${mcpOrigin}/mcp`;
  const prmUrl = `${mcpOrigin}/.well-known/oauth-protected-resource/mcp`;

  async function clientFor(clientId: string): Promise<Client | null> {
    const known = clients.get(clientId);
    if (known) return known;
    if (!options.cimd || !clientId.startsWith('https://') || !options.fetchClientMetadata) return null;
    const doc = (await options.fetchClientMetadata(clientId)) as {
      client_id?: string;
      redirect_uris?: string[];
      token_endpoint_auth_method?: string;
    };
    if (doc.client_id !== clientId) return null;
    return { clientId, method: doc.token_endpoint_auth_method ?? 'none', redirectUris: doc.redirect_uris ?? [] };
  }

  async function handleAs(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', issuer);
    hits.push(`${req.method} ${url.pathname}`);
    if (url.pathname === '/.well-known/oauth-authorization-server') {
      return json(res, 200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        ...(options.registration === false ? {} : { registration_endpoint: `${issuer}/register` }),
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: authMethods,
        ...(options.cimd ? { client_id_metadata_document_supported: true } : {}),
      });
    }
    if (url.pathname === '/register' && req.method === 'POST' && options.registration !== false) {
      const body = JSON.parse(await bodyOf(req)) as Record<string, unknown>;
      registrations.push(body);
      const asked =
        typeof body.token_endpoint_auth_method === 'string' ? body.token_endpoint_auth_method : 'client_secret_basic';
      const method = options.registrationSecrets ? 'client_secret_post' : asked;
      const client: Client = {
        clientId: token('dcr'),
        ...(options.clientIdOf ? { clientId: options.clientIdOf(registrations.length - 1) } : {}),
        method,
        redirectUris: (body.redirect_uris as string[]) ?? [],
        ...(method === 'none' ? {} : { clientSecret: token('sec') }),
      };
      clients.set(client.clientId, client);
      return json(res, 201, {
        ...body,
        client_id: client.clientId,
        ...(client.clientSecret ? { client_secret: client.clientSecret } : {}),
        token_endpoint_auth_method: method,
      });
    }
    if (url.pathname === '/authorize' && req.method === 'GET') {
      const q = url.searchParams;
      authorizeRequests.push(q);
      const client = await clientFor(q.get('client_id') ?? '');
      const redirectUri = q.get('redirect_uri') ?? '';
      if (!client || (client.redirectUris.length > 0 && !client.redirectUris.includes(redirectUri)))
        return json(res, 400, { error: 'invalid_request', error_description: 'unknown client or redirect_uri' });
      if (q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge') || q.get('response_type') !== 'code')
        return json(res, 400, { error: 'invalid_request' });
      const back = new URL(redirectUri);
      if (q.get('state') !== null) back.searchParams.set('state', q.get('state')!);
      if (decision.answer === 'deny') {
        back.searchParams.set('error', 'access_denied');
      } else {
        const code = token('code');
        const scopes = (q.get('scope') ?? '').split(' ').filter(Boolean);
        codes.set(code, {
          clientId: client.clientId,
          subject: decision.subject,
          scopes,
          resource: q.get('resource'),
          challenge: q.get('code_challenge')!,
          redirectUri,
        });
        back.searchParams.set('code', code);
      }
      res.writeHead(302, { location: back.href }).end();
      return;
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      const params = Object.fromEntries(new URLSearchParams(await bodyOf(req)));
      const basic = req.headers.authorization?.startsWith('Basic ')
        ? Buffer.from(req.headers.authorization.slice(6), 'base64').toString('utf8').split(':').map(decodeURIComponent)
        : null;
      const clientAuth = basic
        ? 'client_secret_basic'
        : params.client_secret !== undefined
          ? 'client_secret_post'
          : 'none';
      const clientId = basic?.[0] ?? params.client_id ?? null;
      tokenRequests.push({ grantType: params.grant_type ?? '', clientId, clientAuth, params });
      if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
      if (failures > 0) {
        failures--;
        return json(res, 500, { error: 'server_error', error_description: 'the fake is failing on purpose' });
      }
      const client = clientId === null ? null : await clientFor(clientId);
      const secret = basic?.[1] ?? params.client_secret;
      if (
        !client ||
        client.method !== clientAuth ||
        (client.clientSecret !== undefined && client.clientSecret !== secret)
      )
        return json(res, 401, { error: 'invalid_client' });
      let grant: Grant | undefined;
      if (params.grant_type === 'authorization_code') {
        const c = codes.get(params.code ?? '');
        codes.delete(params.code ?? '');
        const verified =
          c &&
          b64url(
            createHash('sha256')
              .update(params.code_verifier ?? '')
              .digest(),
          ) === c.challenge;
        if (!c || !verified || c.clientId !== client.clientId || c.redirectUri !== params.redirect_uri)
          return json(res, 400, { error: 'invalid_grant' });
        grant = { clientId: c.clientId, subject: c.subject, scopes: c.scopes, resource: params.resource ?? null };
      } else if (params.grant_type === 'refresh_token') {
        grant = refreshTokens.get(params.refresh_token ?? '');
        // Rotation: a refresh token is spent by its first use.
        refreshTokens.delete(params.refresh_token ?? '');
        if (!grant || grant.clientId !== client.clientId)
          return json(res, 400, { error: 'invalid_grant', error_description: 'refresh token unknown or spent' });
      } else {
        return json(res, 400, { error: 'unsupported_grant_type' });
      }
      const access = token('at');
      const refresh = token('rt');
      accessTokens.set(access, grant);
      refreshTokens.set(refresh, grant);
      issued.push({ accessToken: access, refreshToken: refresh });
      return json(res, 200, {
        access_token: access,
        token_type: 'Bearer',
        expires_in: options.accessTokenSeconds ?? 3600,
        refresh_token: refresh,
        scope: grant.scopes.join(' '),
        // An OpenID Connect id_token (unsigned here): where Errand reads the account name from.
        id_token:
          [{ alg: 'none' }, { sub: grant.subject, email: `${grant.subject}@example.com` }]
            .map((p) => b64url(Buffer.from(JSON.stringify(p))))
            .join('.') + '.',
      });
    }
    json(res, 404, { error: 'not_found' });
  }

  const challenge = (extra: string[] = []) =>
    [
      'Bearer ' +
        [...(options.resourceMetadataInHeader === false ? [] : [`resource_metadata="${prmUrl}"`]), ...extra].join(', '),
    ].join('');

  async function handleMcp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', mcpOrigin);
    hits.push(`${req.method} ${url.pathname}`);
    if (
      url.pathname === '/.well-known/oauth-protected-resource/mcp' ||
      url.pathname === '/.well-known/oauth-protected-resource'
    ) {
      return json(res, 200, {
        resource: mcpUrl,
        authorization_servers: [issuer],
        ...(options.scopesSupported ? { scopes_supported: options.scopesSupported } : {}),
      });
    }
    if (url.pathname !== '/mcp') return json(res, 404, { error: 'not_found' });
    const bearer = req.headers.authorization?.startsWith('Bearer ') ? req.headers.authorization.slice(7) : null;
    const grant = bearer === null ? undefined : accessTokens.get(bearer);
    if (!grant) {
      const scope = options.challengeScope ? [`scope="${options.challengeScope}"`] : [];
      return json(
        res,
        401,
        { error: 'invalid_token' },
        { 'www-authenticate': challenge([...(bearer ? ['error="invalid_token"'] : []), ...scope]) },
      );
    }
    const body =
      req.method === 'POST'
        ? (JSON.parse(await bodyOf(req)) as { method?: string; params?: { name?: string } })
        : undefined;
    const needed = body?.method === 'tools/call' ? requiredScopes.get(body.params?.name ?? '') : undefined;
    if (needed && !grant.scopes.includes(needed)) {
      const wider = [...new Set([...grant.scopes, needed])].join(' ');
      return json(
        res,
        403,
        { error: 'insufficient_scope' },
        { 'www-authenticate': challenge(['error="insufficient_scope"', `scope="${wider}"`]) },
      );
    }
    accepted.push({ subject: grant.subject, token: bearer! });
    const server = new McpServer({ name: 'fake-protected', version: '1.0.0' });
    const held = async (tool: string) => {
      const hold = holds.get(tool);
      if (!hold) return;
      hold.count++;
      await hold.promise;
      hold.count--;
    };
    server.registerTool(
      'whoami',
      { description: 'Says whose token called.', annotations: { readOnlyHint: true } },
      async () => (await held('whoami'), { content: [{ type: 'text' as const, text: grant.subject }] }),
    );
    server.registerTool(
      'write_note',
      { description: 'Writes a note.', inputSchema: { text: z.string() } },
      async ({ text }) => (
        await held('write_note'),
        { content: [{ type: 'text' as const, text: `${grant.subject} wrote ${text}` }] }
      ),
    );
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => void transport.close().catch(() => {}));
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  const guard =
    (handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>) =>
    (req: IncomingMessage, res: ServerResponse) =>
      void handle(req, res).catch((err: unknown) => {
        if (!res.headersSent) json(res, 500, { error: 'server_error', error_description: String(err) });
      });
  as.on('request', guard(handleAs));
  mcp.on('request', guard(handleMcp));

  return {
    mcpUrl,
    issuer,
    authorizeRequests,
    tokenRequests,
    registrations,
    accepted,
    hits,
    issued,
    async consent(authorizationUrl, o = {}) {
      decision = { subject: o.subject ?? 'ana', answer: o.answer ?? 'approve' };
      const res = await fetch(authorizationUrl, { redirect: 'manual' });
      const location = res.headers.get('location');
      if (res.status !== 302 || location === null)
        throw new Error(
          `the authorization endpoint answered ${res.status}: ${await res.text()}\n` +
            `asked: ${authorizationUrl}\nregistered: ${JSON.stringify([...clients.values()].map((c) => [c.clientId, c.redirectUris]))}`,
        );
      return location;
    },
    failTokenRequests(n) {
      failures = n;
    },
    delayTokenRequests(ms) {
      delayMs = ms;
    },
    requireScope(tool, scope) {
      requiredScopes.set(tool, scope);
    },
    holdCalls(tool) {
      let release!: () => void;
      const hold = { promise: new Promise<void>((r) => (release = r)), count: 0 };
      holds.set(tool, hold);
      return {
        release: () => {
          holds.delete(tool);
          release();
        },
        waiting: () => hold.count,
      };
    },
    async close() {
      for (const s of [as, mcp]) {
        s.closeAllConnections();
        await new Promise<void>((resolve) => s.close(() => resolve()));
      }
    },
  };
}
