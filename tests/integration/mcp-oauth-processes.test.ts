import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { closePostgres, openPostgres, type PgDb } from '../../src/db/pg-client.js';
import { createSecretBox } from '../../src/secrets/secret-box.js';
import { createPostgresStore } from '../../src/composition/pg-store.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { useTestDatabase } from '../support/test-database.js';
import type { OAuthConnectionsOptions } from '../../src/sign-in/mcp/oauth-connections.js';
import { registrationsMeet, startOAuthHarness, type OAuthHarness } from './oauth-harness.js';

const database = useTestDatabase();

/** Two Errand processes on one PostgreSQL database, one key and one clock, against the same servers. */
async function twoProcesses(
  extra: Partial<OAuthConnectionsOptions> = {},
): Promise<{ a: OAuthHarness; b: OAuthHarness; close(): Promise<void> }> {
  const pools: PgDb[] = await Promise.all([
    openPostgres(database.url, { poolSize: 2 }),
    openPostgres(database.url, { poolSize: 2 }),
  ]);
  await pools[0]!.$client.query('truncate mcp_connections, mcp_oauth_clients, mcp_oauth_pending');
  const clock = new FakeClock();
  const box = createSecretBox(randomBytes(32));
  const service = { refreshPollMs: 10, ...extra };
  const a = await startOAuthHarness({ store: createPostgresStore(pools[0]!, clock).connections, clock, box, service });
  const b = await startOAuthHarness({
    store: createPostgresStore(pools[1]!, clock).connections,
    clock,
    box,
    service,
    sharedFake: a.fake,
    publicUrl: a.publicUrl,
  });
  return {
    a,
    b,
    async close() {
      await b.close();
      await a.close();
      await Promise.all(pools.map((p) => closePostgres(p)));
    },
  };
}

let closing: (() => Promise<void>) | null = null;
afterEach(async () => {
  await closing?.();
  closing = null;
});

describe.skipIf(database.skip)('OAuth connections shared by several processes (PostgreSQL)', () => {
  it('spends a rotating refresh token once when two processes need a fresh token at the same moment', async () => {
    const { a, b, close } = await twoProcesses();
    closing = close;
    await a.signIn('slack:U1');
    a.clock.advance(3600_000);
    a.fake.delayTokenRequests(200);
    const [ta, tb] = await Promise.all([
      a.connections.tokenFor('slack:U1', 'linear'),
      b.connections.tokenFor('slack:U1', 'linear'),
    ]);
    const fresh = { kind: 'token', accessToken: a.fake.issued[1]!.accessToken };
    expect(ta).toEqual(fresh);
    expect(tb).toEqual(fresh);
    expect(a.fake.tokenRequests.map((t) => t.grantType)).toEqual(['authorization_code', 'refresh_token']);
    expect(a.fake.authorizeRequests).toHaveLength(1);
  });

  it('keeps one client when two processes register at the same moment: both Connect links work', async () => {
    const { a, b, close } = await twoProcesses({ fetch: registrationsMeet(2) });
    closing = close;
    const [one, two] = await Promise.all([
      a.connections.tokenFor('slack:U1', 'linear', { runId: 'run-1' }),
      b.connections.tokenFor('slack:U2', 'linear', { runId: 'run-2' }),
    ]);
    if (one.kind !== 'authorize' || two.kind !== 'authorize') throw new Error('expected two sign-in URLs');
    expect(a.fake.registrations).toHaveLength(2);
    expect(new URL(one.url).searchParams.get('client_id')).toBe(new URL(two.url).searchParams.get('client_id'));
    expect((await b.browse(await a.fake.consent(one.url, { subject: 'ana' }))).status).toBe(200);
    expect((await a.browse(await a.fake.consent(two.url, { subject: 'bo' }))).status).toBe(200);
    expect([...a.connected, ...b.connected].map((c) => c.principal).sort()).toEqual(['slack:U1', 'slack:U2']);
  });

  it('completes a sign-in on another process than the one that started it', async () => {
    const { a, b, close } = await twoProcesses();
    closing = close;
    const outcome = await a.connections.tokenFor('slack:U1', 'linear', { runId: 'run-1' });
    if (outcome.kind !== 'authorize') throw new Error('expected a URL');
    const callback = await a.fake.consent(outcome.url, { subject: 'ana' });
    const page = await b.browse(callback);
    expect(page.status).toBe(200);
    expect(b.connected).toEqual([{ principal: 'slack:U1', server: 'linear', runId: 'run-1' }]);
    expect(a.connected).toEqual([]);
    expect(await a.connections.tokenFor('slack:U1', 'linear')).toEqual({
      kind: 'token',
      accessToken: a.fake.issued[0]!.accessToken,
    });
  });
});
