import { randomBytes } from 'node:crypto';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { expect } from 'vitest';
import type { ConnectionStore } from '../../src/sign-in/connection-store.js';
import { closeDatabase, openDatabase } from '../../src/db/client.js';
import type { CallbackOutcome } from '../../src/sign-in/mcp/authorization-callback.js';
import {
  createOAuthConnections,
  type OAuthConnections,
  type OAuthConnectionsOptions,
} from '../../src/sign-in/mcp/oauth-connections.js';
import { startOAuthWebServer, type OAuthWebServer } from '../../src/sign-in/mcp/oauth-web-server.js';
import { createSecretBox, type SecretBox } from '../../src/secrets/secret-box.js';
import type { OAuthServerSettings } from '../../src/settings/oauth-settings.js';
import { createSqliteStore, type SqliteStore } from '../../src/composition/sqlite-store.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { RecordingMetrics } from '../fakes/recording-metrics.js';
import { startFakeOAuth, type FakeOAuth, type FakeOAuthOptions } from '../fakes/fake-oauth.js';
import { capturingLogger } from '../fixtures/mcp/mcp-test-kit.js';
import { freePort } from '../support/free-port.js';

/**
 * A fetch for the OAuth service that holds every dynamic registration until `n` have been asked for: `n` sign-ins
 * that all found no stored client register at the same moment, whatever the machine's pace.
 */
export function registrationsMeet(n: number): FetchLike {
  let asked = 0;
  let meet!: () => void;
  const met = new Promise<void>((resolve) => (meet = resolve));
  return async (url, init) => {
    if (new URL(String(url)).pathname === '/register') {
      if (++asked === n) meet();
      await met;
    }
    return fetch(url, init);
  };
}

export interface OAuthHarnessOptions {
  readonly fake?: FakeOAuthOptions;
  /** The server's `auth` settings beyond "oauth". */
  readonly settings?: Partial<OAuthServerSettings>;
  /** PUBLIC_URL is https (a Client ID Metadata Document can be offered); the browser still reaches 127.0.0.1. */
  readonly https?: boolean;
  /** Another store (PostgreSQL); default: a fresh SQLite database. */
  readonly store?: ConnectionStore;
  readonly clock?: FakeClock;
  readonly box?: SecretBox;
  readonly service?: Partial<OAuthConnectionsOptions>;
  /** PUBLIC_URL as another process behind the same address has it (the browser still reaches this one). */
  readonly publicUrl?: string;
  /** Reuse this fake (a second process of Errand against the same servers). */
  readonly sharedFake?: FakeOAuth;
}

/** Errand's OAuth side (the service and its web endpoint) against the fake authorization server and MCP server. */
export interface OAuthHarness {
  readonly fake: FakeOAuth;
  readonly connections: OAuthConnections;
  readonly clock: FakeClock;
  readonly box: SecretBox;
  /** The SQLite store, when the harness made one (raw rows for the encryption test). */
  readonly sqlite: SqliteStore | null;
  readonly publicUrl: string;
  readonly web: OAuthWebServer;
  readonly log: ReturnType<typeof capturingLogger>;
  readonly metrics: RecordingMetrics;
  readonly connected: { principal: string; server: string; runId: string | null }[];
  readonly notConnected: CallbackOutcome[];
  /** Opens a URL under PUBLIC_URL the way a browser would reach this Errand. */
  browse(url: string): Promise<{ status: number; text: string }>;
  /** A whole sign-in: tokenFor → the person consents at the authorization server → the callback page. */
  signIn(
    principal: string,
    options?: { subject?: string; answer?: 'approve' | 'deny'; runId?: string },
  ): Promise<{ status: number; text: string; authorizeUrl: URL }>;
  close(): Promise<void>;
}

export async function startOAuthHarness(o: OAuthHarnessOptions = {}): Promise<OAuthHarness> {
  const clock = o.clock ?? new FakeClock();
  const box = o.box ?? createSecretBox(randomBytes(32));
  const sqliteDb = o.store ? null : openDatabase(':memory:');
  const sqlite = sqliteDb ? createSqliteStore(sqliteDb, clock) : null;
  const store = o.store ?? sqlite!.connections;
  const port = await freePort();
  const local = `http://127.0.0.1:${port}`;
  const publicUrl = o.publicUrl ?? (o.https ? 'https://errand.test' : local);
  const connected: OAuthHarness['connected'] = [];
  const notConnected: CallbackOutcome[] = [];
  const log = capturingLogger();
  // Listening at once on the port just found free, before the fakes take ports of their own.
  let connections: OAuthConnections | null = null;
  const web = await startOAuthWebServer({
    port,
    host: '127.0.0.1',
    publicUrl,
    logger: log.logger,
    completeAuthorization: (q) => connections!.completeAuthorization(q),
    onConnected: (principal, server, runId) => void connected.push({ principal, server, runId }),
    onNotConnected: (outcome) => void notConnected.push(outcome),
  });
  const toLocal = (url: string) => (url.startsWith(publicUrl) ? local + url.slice(publicUrl.length) : url);
  const fake =
    o.sharedFake ??
    (await startFakeOAuth({
      ...o.fake,
      fetchClientMetadata: async (url) => (await fetch(toLocal(url))).json() as Promise<unknown>,
    }));
  const metrics = new RecordingMetrics();
  connections = createOAuthConnections({
    metrics,
    store,
    box,
    clock,
    publicUrl,
    servers: [
      {
        name: 'linear',
        url: fake.mcpUrl,
        settings: { scopes: null, clientId: null, clientSecret: null, ...o.settings },
      },
    ],
    logger: log.logger,
    // Retries and waits for another process's refresh step in milliseconds, not the production 100 ms.
    refreshPollMs: 5,
    ...o.service,
  });
  const browse = async (url: string) => {
    const res = await fetch(toLocal(url));
    return { status: res.status, text: await res.text() };
  };
  const service = connections;
  return {
    fake,
    connections: service,
    clock,
    box,
    sqlite,
    publicUrl,
    web,
    log,
    metrics,
    connected,
    notConnected,
    browse,
    async signIn(principal, s = {}) {
      const outcome = await service.tokenFor(principal, 'linear', { runId: s.runId ?? 'run-1' });
      if (outcome.kind !== 'authorize') throw new Error(`expected a sign-in URL, got ${JSON.stringify(outcome)}`);
      const callback = await fake.consent(outcome.url, {
        ...(s.subject ? { subject: s.subject } : {}),
        ...(s.answer ? { answer: s.answer } : {}),
      });
      expect(callback.startsWith(`${publicUrl}/oauth/callback?`)).toBe(true);
      return { ...(await browse(callback)), authorizeUrl: new URL(outcome.url) };
    },
    async close() {
      await web.close();
      if (!o.sharedFake) await fake.close();
      if (sqliteDb) closeDatabase(sqliteDb);
    },
  };
}
