import { describe, expect, it } from 'vitest';
import type { ConnectionStore, SealedTokens } from '../../src/sign-in/connection-store.js';
import { closeDatabase, openDatabase } from '../../src/db/client.js';
import { closePostgres, openPostgres } from '../../src/db/pg-client.js';
import { createPostgresStore } from '../../src/composition/pg-store.js';
import { createSqliteStore } from '../../src/composition/sqlite-store.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { useTestDatabase } from '../support/test-database.js';

/** A fresh pair of connection stores on one empty database (`peer`: another process; SQLite's is the same store). */
type ConnectionStoreFactory = () => Promise<{
  store: ConnectionStore;
  peer: ConnectionStore;
  clock: FakeClock;
  close(): Promise<void>;
}>;

const sealed = (tokens: string, extra: Partial<SealedTokens> = {}): SealedTokens => ({
  tokens,
  scopes: ['read'],
  account: null,
  expiresAt: null,
  ...extra,
});

/** What the OAuth layer relies on from the connection store on any database. */
function connectionStoreContract(name: string, factory: ConnectionStoreFactory): void {
  describe(`${name}: the connection store`, () => {
    it('keeps one connection per person per server, replaced by a new sign-in that keeps its "since" and moves the version on', async () => {
      const { store, clock, close } = await factory();
      try {
        await store.saveConnection(
          'slack:U1',
          'linear',
          sealed('t1', { account: 'ana@example.com', expiresAt: clock.now() + 3600_000 }),
        );
        const since = clock.now();
        clock.advance(60_000);
        await store.saveConnection('slack:U1', 'linear', sealed('t2', { scopes: ['read', 'write'] }));
        await store.saveConnection('slack:U1', 'github', sealed('g1'));
        await store.saveConnection('slack:U2', 'linear', sealed('other'));
        const row = await store.connection('slack:U1', 'linear');
        expect(row).toMatchObject({
          tokens: 't2',
          scopes: ['read', 'write'],
          account: null,
          expiresAt: null,
          version: 2,
          connectedAt: since,
          updatedAt: since + 60_000,
        });
        expect((await store.connectionsOf('slack:U1')).map((r) => r.server)).toEqual(['github', 'linear']);
        expect(await store.disconnect('slack:U1', 'linear')).toBe(true);
        expect(await store.disconnect('slack:U1', 'linear')).toBe(false);
        expect(await store.connection('slack:U1', 'linear')).toBeNull();
        expect((await store.connection('slack:U2', 'linear'))?.tokens).toBe('other');
      } finally {
        await close();
      }
    });

    it('lets exactly one of two racing processes claim a refresh, and only the holder store its result', async () => {
      const { store, peer, clock, close } = await factory();
      try {
        await store.saveConnection('slack:U1', 'linear', sealed('old'));
        const { version } = (await store.connection('slack:U1', 'linear'))!;
        const until = clock.now() + 30_000;
        const claims = await Promise.all([
          store.claimRefresh('slack:U1', 'linear', version, 'a', until),
          peer.claimRefresh('slack:U1', 'linear', version, 'b', until),
        ]);
        expect(claims.filter(Boolean)).toHaveLength(1);
        const [winner, loser] = claims[0] ? (['a', 'b'] as const) : (['b', 'a'] as const);
        expect(await store.finishRefresh('slack:U1', 'linear', loser, sealed('loser'))).toBe(false);
        expect(await peer.finishRefresh('slack:U1', 'linear', winner, sealed('new'))).toBe(true);
        const after = (await store.connection('slack:U1', 'linear'))!;
        expect(after).toMatchObject({ tokens: 'new', version: version + 1, refreshHolder: null, refreshUntil: null });
        // A claim on the version that was refreshed already fails: the caller reads the new token instead.
        expect(await store.claimRefresh('slack:U1', 'linear', version, 'c', until)).toBe(false);
      } finally {
        await close();
      }
    });

    it('frees a claim when its holder gives up or its time runs out, never before', async () => {
      const { store, peer, clock, close } = await factory();
      try {
        await store.saveConnection('slack:U1', 'linear', sealed('old'));
        const { version } = (await store.connection('slack:U1', 'linear'))!;
        expect(await store.claimRefresh('slack:U1', 'linear', version, 'a', clock.now() + 30_000)).toBe(true);
        expect(await peer.claimRefresh('slack:U1', 'linear', version, 'b', clock.now() + 30_000)).toBe(false);
        await store.releaseRefresh('slack:U1', 'linear', 'a');
        expect(await peer.claimRefresh('slack:U1', 'linear', version, 'b', clock.now() + 30_000)).toBe(true);
        clock.advance(30_000);
        expect(await store.claimRefresh('slack:U1', 'linear', version, 'c', clock.now() + 30_000)).toBe(true);
        expect(await peer.finishRefresh('slack:U1', 'linear', 'b', sealed('late'))).toBe(false);
      } finally {
        await close();
      }
    });

    it('spends a state once: taken, then used; an expired one is spent too; an unknown one is unknown', async () => {
      const { store, peer, clock, close } = await factory();
      try {
        const base = {
          principal: 'slack:U1',
          server: 'linear',
          runId: 'run-1',
          codeVerifier: 'sealed-verifier',
          scopes: ['read'],
        };
        await store.addPending({ ...base, state: 's1', expiresAt: clock.now() + 600_000 });
        await store.addPending({ ...base, state: 's2', expiresAt: clock.now() + 600_000 });
        const race = await Promise.all([store.takePending('s1', clock.now()), peer.takePending('s1', clock.now())]);
        expect(race.map((r) => r.outcome).sort()).toEqual(['taken', 'used']);
        const taken = race.find((r) => r.outcome === 'taken');
        expect(taken).toMatchObject({ pending: { ...base, state: 's1', usedAt: clock.now() } });
        clock.advance(600_000);
        expect(await store.takePending('s2', clock.now())).toMatchObject({
          outcome: 'expired',
          pending: { server: 'linear' },
        });
        expect(await store.takePending('s2', clock.now())).toMatchObject({ outcome: 'used' });
        expect(await store.takePending('nope', clock.now())).toEqual({ outcome: 'unknown' });
        expect(await store.sweepPending(clock.now() + 1)).toBe(2);
        expect(await store.takePending('s1', clock.now())).toEqual({ outcome: 'unknown' });
      } finally {
        await close();
      }
    });

    it('adds a registration only where none is stored, whichever process stored it', async () => {
      const { store, peer, close } = await factory();
      try {
        expect(await store.addClient('linear', 'sealed-1')).toBe(true);
        expect(await peer.addClient('linear', 'sealed-2')).toBe(false);
        expect(await peer.client('linear')).toBe('sealed-1');
        await peer.forgetClient('linear');
        expect(await peer.addClient('linear', 'sealed-3')).toBe(true);
        expect(await store.client('linear')).toBe('sealed-3');
      } finally {
        await close();
      }
    });

    it('keeps one registration per server, replaced or forgotten', async () => {
      const { store, peer, close } = await factory();
      try {
        expect(await store.client('linear')).toBeNull();
        await store.saveClient('linear', 'sealed-1');
        await peer.saveClient('linear', 'sealed-2');
        expect(await store.client('linear')).toBe('sealed-2');
        await store.forgetClient('linear');
        expect(await peer.client('linear')).toBeNull();
      } finally {
        await close();
      }
    });
  });
}

connectionStoreContract('SQLite', async () => {
  const clock = new FakeClock();
  const db = openDatabase(':memory:');
  const store = createSqliteStore(db, clock);
  return { store: store.connections, peer: store.connections, clock, close: async () => closeDatabase(db) };
});

const database = useTestDatabase();
describe.skipIf(database.skip)('PostgreSQL', () => {
  connectionStoreContract('PostgreSQL', async () => {
    const clock = new FakeClock();
    const [a, b] = await Promise.all([
      openPostgres(database.url, { poolSize: 2 }),
      openPostgres(database.url, { poolSize: 2 }),
    ]);
    await a.$client.query('truncate mcp_connections, mcp_oauth_clients, mcp_oauth_pending');
    return {
      store: createPostgresStore(a, clock).connections,
      peer: createPostgresStore(b, clock).connections,
      clock,
      close: async () => {
        await Promise.all([closePostgres(a), closePostgres(b)]);
      },
    };
  });
});
