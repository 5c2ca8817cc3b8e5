import { randomUUID } from 'node:crypto';
import { auth, extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Clock } from '../../clock.js';
import type { ConnectionStore } from '../connection-store.js';
import type { McpConnectionRow } from '../../db/schema.js';
import { maskSecrets, type Logger } from '../../logger.js';
import { noopMetrics, type Metrics } from '../../metrics/metrics.js';
import type { SecretBox } from '../../secrets/secret-box.js';
import { completeAuthorization } from './authorization-callback.js';
import { probeChallenge, type Challenge } from './challenge-probe.js';
import { coversScopes, scopeList, type OAuthServer } from './oauth-server.js';
import { openTokens } from './sealed-records.js';
import {
  ClientRegisteredMeanwhile,
  RefreshNotCompleted,
  StoredOAuthProvider,
  type ProviderDeps,
} from './stored-oauth-provider.js';
import { SignInUnavailableError, type OAuthConnections, type TokenOutcome } from './oauth-connections-contract.js';

export {
  SignInUnavailableError,
  type ConnectionSummary,
  type OAuthConnections,
  type TokenOutcome,
} from './oauth-connections-contract.js';

export interface OAuthConnectionsOptions {
  readonly store: ConnectionStore;
  readonly box: SecretBox;
  readonly clock: Clock;
  /** PUBLIC_URL without a trailing slash. */
  readonly publicUrl: string;
  readonly servers: readonly OAuthServer[];
  readonly logger: Logger;
  /** Where `errand_mcp_oauth_total{server,outcome}` is counted (default: nowhere). */
  readonly metrics?: Metrics;
  /** Every request to authorization and MCP servers goes through it (tests: the real fetch to local fakes). */
  readonly fetch?: FetchLike;
  /** Waits between looks while another process refreshes (default: a real timer). */
  readonly sleep?: (ms: number) => Promise<void>;
  /** How long one process may hold a refresh before another may try (default 30 s: longer than one token request). */
  readonly refreshClaimMs?: number;
  /** How often a waiting process looks whether the refresh landed (default 100 ms). */
  readonly refreshPollMs?: number;
  /** A token this close to its end is refreshed before use (default 60 s). */
  readonly expirySkewMs?: number;
  /** Per request to an OAuth or MCP server (default 15 s). */
  readonly requestTimeoutMs?: number;
}

/** Attempts of one token lookup against an authorization server that fails for a moment. */
const MAX_ATTEMPTS = 3;
/** Looks at the stored connection in one lookup (each wait for another process's refresh is one). */
const MAX_LOOKS = 10;
/** Sign-ins that ended unused are deleted this long after they expired (kept a while so a late click reads "expired"). */
const PENDING_KEEP_MS = 24 * 3600_000;

/** Creates the OAuth connections service over the store; nothing runs until a method is called. */
export function createOAuthConnections(options: OAuthConnectionsOptions): OAuthConnections {
  const { store, box, clock, logger } = options;
  const servers = new Map(options.servers.map((s) => [s.name, s]));
  const timeoutMs = options.requestTimeoutMs ?? 15_000;
  const baseFetch = options.fetch ?? ((url, init) => fetch(url, init));
  const fetchFn: FetchLike = (url, init) =>
    baseFetch(url, { ...init, signal: init?.signal ?? AbortSignal.timeout(timeoutMs) });
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const claimMs = options.refreshClaimMs ?? 30_000;
  const pollMs = options.refreshPollMs ?? 100;
  const skewMs = options.expirySkewMs ?? 60_000;
  const deps: ProviderDeps = {
    store,
    box,
    clock,
    publicUrl: options.publicUrl,
    discovery: new Map<string, OAuthDiscoveryState>(),
  };
  const reported = new Set<string>();
  const metrics = options.metrics ?? noopMetrics;
  /** Counts an outcome on its way out. */
  const counted = (server: string, outcome: TokenOutcome): TokenOutcome => {
    metrics.mcpOAuth(server, outcome.kind);
    return outcome;
  };

  const serverOf = (name: string): OAuthServer => {
    const s = servers.get(name);
    if (!s) throw new Error(`"${name}" is not an MCP server with "auth": "oauth"`);
    return s;
  };

  /** Logs an authorization server's failure once per server and kind, with the URL tried and no secret. */
  const report = (server: OAuthServer, what: string, err: unknown) => {
    const key = `${server.name}:${what}`;
    if (reported.has(key)) return;
    reported.add(key);
    const scrub = server.scrub ?? ((t: string) => t);
    const message = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    logger.warn(
      { server: server.name, url: scrub(server.url), error: maskSecrets(scrub(message)).slice(0, 500) },
      `MCP server ${server.name}: ${what}`,
    );
  };
  const unavailable = (server: OAuthServer): TokenOutcome => ({
    kind: 'unavailable',
    reason: `The sign-in service of ${server.name} is not reachable right now.`,
  });

  const usable = (row: McpConnectionRow, wanted: readonly string[]) => coversScopes(row.scopes, wanted);
  const fresh = (row: McpConnectionRow) => row.expiresAt === null || row.expiresAt - skewMs > clock.now();

  /** The stored access token if it is still good, after a refresh if one is due; null when the person must sign in. */
  async function currentToken(
    server: OAuthServer,
    principal: string,
    wanted: readonly string[],
    forceRefresh = false,
  ): Promise<TokenOutcome | null> {
    for (let attempt = 1; attempt <= MAX_LOOKS; attempt++) {
      const row = await store.connection(principal, server.name);
      if (row === null || !usable(row, wanted)) return null;
      const tokens = openTokens(box, row.tokens, principal, server.name);
      if (tokens === null) {
        // Sealed with another key (ERRAND_SECRET_KEY changed): it can never be used again.
        await store.disconnect(principal, server.name);
        return null;
      }
      if (fresh(row) && !(forceRefresh && attempt === 1)) return { kind: 'token', accessToken: tokens.access_token };
      if (!tokens.refresh_token) return null;
      const holder = randomUUID();
      if (!(await store.claimRefresh(principal, server.name, row.version, holder, clock.now() + claimMs))) {
        await waitForRefresh(principal, server.name, row.version);
        continue;
      }
      const provider = new StoredOAuthProvider(deps, server, principal, null, { kind: 'refresh', holder });
      try {
        await auth(provider, { serverUrl: server.url, fetchFn });
        metrics.mcpOAuth(server.name, 'refreshed');
        continue;
      } catch (err) {
        await store.releaseRefresh(principal, server.name, holder);
        // The SDK gave up the refresh: the server refused the refresh token (the connection is gone then), or failed.
        if ((await store.connection(principal, server.name)) === null) return null;
        if (!(err instanceof RefreshNotCompleted)) report(server, 'refreshing a token failed', err);
        if (attempt >= MAX_ATTEMPTS) return unavailable(server);
        await sleep(pollMs * attempt);
      }
    }
    return unavailable(server);
  }

  /** Waits until the refresh another process claimed has landed (the version moved on) or its claim ran out. */
  async function waitForRefresh(principal: string, server: string, version: number): Promise<void> {
    const deadline = clock.now() + claimMs;
    while (clock.now() < deadline) {
      await sleep(pollMs);
      const row = await store.connection(principal, server);
      if (
        row === null ||
        row.version !== version ||
        row.refreshHolder === null ||
        (row.refreshUntil ?? 0) <= clock.now()
      )
        return;
    }
  }

  let sweptAt = -Infinity;
  /** Deletes long-expired sign-ins, at most once an hour, on the way to starting a new one. */
  async function sweep(): Promise<void> {
    if (clock.now() - sweptAt < 3600_000) return;
    sweptAt = clock.now();
    await store.sweepPending(clock.now() - PENDING_KEEP_MS);
  }

  /** Starts a sign-in: the SDK discovers, registers when needed and builds the URL; the pending row is written. */
  async function startSignIn(
    server: OAuthServer,
    principal: string,
    runId: string | null,
    challenge: Challenge,
  ): Promise<TokenOutcome> {
    await sweep();
    for (let attempt = 1; ; attempt++) {
      const provider = new StoredOAuthProvider(deps, server, principal, runId, { kind: 'interactive' });
      try {
        const result = await auth(provider, {
          serverUrl: server.url,
          fetchFn,
          ...(challenge.scope ? { scope: challenge.scope } : {}),
          ...(challenge.resourceMetadataUrl ? { resourceMetadataUrl: challenge.resourceMetadataUrl } : {}),
        });
        if (result === 'REDIRECT' && provider.authorizationUrl)
          return { kind: 'authorize', url: provider.authorizationUrl.href };
        return unavailable(server);
      } catch (err) {
        // Another sign-in's registration was stored first: start again at once with that client.
        if (err instanceof ClientRegisteredMeanwhile && attempt < MAX_ATTEMPTS) continue;
        deps.discovery.delete(server.name);
        if (attempt >= MAX_ATTEMPTS) {
          report(server, 'the authorization server could not be discovered or refused Errand', err);
          return unavailable(server);
        }
        await sleep(pollMs * attempt);
      }
    }
  }

  async function tokenFor(
    principal: string,
    name: string,
    o: { runId?: string | null; scope?: string } = {},
  ): Promise<TokenOutcome> {
    const server = serverOf(name);
    const wanted = scopeList(o.scope);
    const current = await currentToken(server, principal, wanted);
    if (current !== null) return current;
    const challenge = await probeChallenge(server.url, fetchFn);
    const had = (await store.connection(principal, name))?.scopes ?? [];
    const scope = scopeList([...had, ...scopeList(challenge.scope), ...wanted].join(' ')).join(' ');
    return startSignIn(server, principal, o.runId ?? null, { ...challenge, ...(scope !== '' ? { scope } : {}) });
  }

  async function answerChallenge(
    principal: string,
    name: string,
    response: Response,
    runId: string | null,
  ): Promise<TokenOutcome> {
    const server = serverOf(name);
    const { resourceMetadataUrl, scope, error } = extractWWWAuthenticateParams(response);
    if (response.status === 403 && error === 'insufficient_scope')
      return tokenFor(principal, name, { runId, ...(scope ? { scope } : {}) });
    if (response.status !== 401) return unavailable(server);
    // The token was refused before its time: a refresh may still give a good one; else the person signs in again.
    const refreshed = await currentToken(server, principal, [], true);
    if (refreshed !== null) return refreshed;
    await store.disconnect(principal, name);
    return startSignIn(server, principal, runId, {
      ...(scope ? { scope } : {}),
      ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}),
    });
  }

  return {
    tokenFor: async (principal, name, o) => counted(name, await tokenFor(principal, name, o)),
    async answerChallenge(principal, name, response, runId = null) {
      return counted(name, await answerChallenge(principal, name, response, runId));
    },
    authProvider(principal, name, runId = null) {
      const server = serverOf(name);
      const accessToken = async () => {
        const current = await currentToken(server, principal, []);
        if (current?.kind === 'unavailable') throw new SignInUnavailableError(current.reason);
        return current?.kind === 'token' ? current.accessToken : null;
      };
      return new StoredOAuthProvider(deps, server, principal, runId, { kind: 'interactive', accessToken });
    },
    async completeAuthorization(query) {
      const outcome = await completeAuthorization({ deps, servers, fetchFn, report }, query);
      metrics.mcpOAuth('server' in outcome ? outcome.server : 'unknown', outcome.kind);
      return outcome;
    },
    async connectionsOf(principal) {
      const rows = await store.connectionsOf(principal);
      return rows
        .filter((r) => servers.has(r.server))
        .map((r) => ({ server: r.server, account: r.account, scopes: r.scopes, since: r.connectedAt }));
    },
    disconnect: (principal, server) => store.disconnect(principal, server),
    has: (server) => servers.has(server),
  };
}
