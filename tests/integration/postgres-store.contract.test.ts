import { describe, expect, it } from 'vitest';
import { closePostgres, openPostgres, type PgDb } from '../../src/db/pg-client.js';
import { hostname } from 'node:os';
import { DatabaseError } from '../../src/errors.js';
import { createPostgresStore } from '../../src/composition/pg-store.js';
import { claimProcessIdentity } from '../../src/store/postgres/process-identity.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { promiseHooksOn } from '../fakes/promise-hooks.js';
import { useTestDatabase } from '../support/test-database.js';
import { storeContract, type StoreFactory } from './store-contract.js';
import { privacyStoreContract } from './privacy-store-contract.js';
import { settlementContract } from './settlement-contract.js';

const database = useTestDatabase();

/** Empties every table between tests (one database per file; each test starts from nothing). */
async function emptied(db: PgDb): Promise<void> {
  await db.$client.query(
    'truncate conversations, runs, tasks, messages, outbox, outbox_files, processed_events, tool_grants, schedules, usage_daily, channel_pacing restart identity cascade',
  );
}

/** Two pools on one database: the store under test and a peer, as two processes would have. */
const factory: StoreFactory = async () => {
  const clock = new FakeClock();
  const [a, b] = await Promise.all([
    openPostgres(database.url, { poolSize: 4 }),
    openPostgres(database.url, { poolSize: 4 }),
  ]);
  await emptied(a);
  return {
    store: createPostgresStore(a, clock, { ownership: { processId: 'process-a', leaseMs: 30_000 } }),
    peer: createPostgresStore(b, clock, { ownership: { processId: 'process-b', leaseMs: 30_000 } }),
    close: async () => {
      await Promise.all([closePostgres(a), closePostgres(b)]);
    },
  };
};

describe.skipIf(database.skip)('PostgreSQL store', () => {
  storeContract('PostgreSQL', factory);
  privacyStoreContract('PostgreSQL', factory);
  settlementContract('PostgreSQL', factory);

  it('records the owner and lease of a run, and at start-up interrupts only its own runs and those whose lease ran out', async () => {
    const { store, peer, close } = await factory();
    const clock = new FakeClock();
    try {
      const mine = await store.conversations.ensure({
        platform: 'memory',
        workspace: 'W',
        channel: 'C',
        thread: 'mine',
      });
      const theirs = await store.conversations.ensure({
        platform: 'memory',
        workspace: 'W',
        channel: 'C',
        thread: 'theirs',
      });
      const myRun = await store.runs.create(mine, null);
      const theirRun = await peer.runs.create(theirs, null);
      expect(myRun).toMatchObject({ owner: 'process-a', leaseUntil: clock.now() + 30_000 });
      expect((await store.runs.interruptAllRunning()).map((r) => r.id)).toEqual([myRun.id]);
      expect((await store.runs.get(theirRun.id))?.status).toBe('running');
    } finally {
      await close();
    }
  });

  it('takes over a run whose lease ran out when it starts, whoever owned it', async () => {
    const clock = new FakeClock();
    const [a, b] = await Promise.all([
      openPostgres(database.url, { poolSize: 2 }),
      openPostgres(database.url, { poolSize: 2 }),
    ]);
    try {
      await emptied(a);
      const dead = createPostgresStore(a, clock, { ownership: { processId: 'dead', leaseMs: 30_000 } });
      const survivor = createPostgresStore(b, clock, { ownership: { processId: 'survivor', leaseMs: 30_000 } });
      const c = await dead.conversations.ensure({ platform: 'memory', workspace: 'W', channel: 'C', thread: 'T' });
      const run = await dead.runs.create(c, null);
      expect(await survivor.runs.interruptAllRunning()).toEqual([]);
      clock.advance(30_001);
      expect((await survivor.runs.interruptAllRunning()).map((r) => r.id)).toEqual([run.id]);
    } finally {
      await Promise.all([closePostgres(a), closePostgres(b)]);
    }
  });

  it('refuses in a test run a root-store call made inside a transaction (it would run outside it): the body uses its `tx`', async () => {
    const { store, peer, close } = await factory();
    try {
      const c = await store.conversations.ensure({ platform: 'memory', workspace: 'W', channel: 'C', thread: 'T' });
      await store.atomically(async (tx) => {
        await tx.tasks.add({ conversationId: c, title: 'a', description: 'a', createdBy: 'user' });
        await expect(store.tasks.list(c)).rejects.toThrow(
          /tasks\.list was called on the root store inside an open transaction/,
        );
        expect(await tx.tasks.list(c)).toHaveLength(1);
        expect(await peer.tasks.list(c)).toHaveLength(0);
      });
      expect(await peer.tasks.list(c)).toHaveLength(1);
    } finally {
      await close();
    }
  });

  it('turns no promise hook on for a transaction in production (the transaction is carried in `tx`)', async () => {
    const db = await openPostgres(database.url, { poolSize: 2 });
    const close = () => closePostgres(db);
    const store = createPostgresStore(db, new FakeClock(), { checkTransactionContext: false });
    try {
      const c = await store.conversations.ensure({
        platform: 'memory',
        workspace: 'W',
        channel: 'C',
        thread: 'no-hook',
      });
      const before = await promiseHooksOn();
      const inside = await Promise.all(
        [1, 2].map((n) =>
          store.atomically(async (tx) => {
            await tx.tasks.add({ conversationId: c, title: `t${n}`, description: 't', createdBy: 'user' });
            return promiseHooksOn();
          }),
        ),
      );
      expect(inside).toEqual([before, before]);
      expect(await store.tasks.list(c)).toHaveLength(2);
    } finally {
      await close();
    }
  });

  it('keeps its checking transaction context on only while a transaction is open (no promise hook on Node 20 between them)', async () => {
    const { store, close } = await factory();
    try {
      const c = await store.conversations.ensure({ platform: 'memory', workspace: 'W', channel: 'C', thread: 'T' });
      // Files share a worker (isolate: false): another file may have left a hook of its own on; the store must
      // leave the process as it found it.
      const before = await promiseHooksOn();
      const inside: boolean[] = [];
      const both = [1, 2].map((n) =>
        store.atomically(async (tx) => {
          await tx.tasks.add({ conversationId: c, title: `t${n}`, description: 't', createdBy: 'user' });
          inside.push(await promiseHooksOn());
        }),
      );
      await Promise.all(both);
      expect(inside).toEqual([true, true]);
      expect(await promiseHooksOn()).toBe(before);
      expect(await store.tasks.list(c)).toHaveLength(2);
    } finally {
      await close();
    }
  });

  it('gives a process its stable name back after the holder is gone, a one-off name beside a live holder, and refuses a duplicate ERRAND_PROCESS_ID', async () => {
    const first = await claimProcessIdentity(database.url, undefined);
    expect(first).toMatchObject({ processId: hostname(), stable: true });
    const beside = await claimProcessIdentity(database.url, undefined);
    expect(beside.stable).toBe(false);
    expect(beside.processId).not.toBe(hostname());
    await first.release();
    const again = await claimProcessIdentity(database.url, undefined);
    expect(again).toMatchObject({ processId: hostname(), stable: true });
    await Promise.all([beside.release(), again.release()]);

    const one = await claimProcessIdentity(database.url, 'errand-1');
    const duplicate = await claimProcessIdentity(database.url, 'errand-1').catch((err: unknown) => err);
    expect(duplicate).toBeInstanceOf(DatabaseError);
    expect((duplicate as DatabaseError).message).toContain('ERRAND_PROCESS_ID=errand-1 is in use');
    await one.release();
  });

  it('runs a transaction again when PostgreSQL rolls it back to break a deadlock, so both writers succeed', async () => {
    const { store, peer, close } = await factory();
    try {
      const ref = (thread: string) => ({ platform: 'memory', workspace: 'W', channel: 'C', thread });
      await store.conversations.ensure(ref('one'));
      await store.conversations.ensure(ref('two'));
      let aHolds!: () => void;
      let bHolds!: () => void;
      const aHeld = new Promise<void>((r) => (aHolds = r));
      const bHeld = new Promise<void>((r) => (bHolds = r));
      let bodies = 0;
      const a = store.atomically(async (tx) => {
        bodies++;
        await tx.conversations.ensure(ref('one'));
        aHolds();
        await bHeld;
        await tx.conversations.ensure(ref('two'));
      });
      const b = peer.atomically(async (tx) => {
        bodies++;
        await aHeld;
        await tx.conversations.ensure(ref('two'));
        bHolds();
        await tx.conversations.ensure(ref('one'));
      });
      await expect(Promise.all([a, b])).resolves.toEqual([undefined, undefined]);
      // At least one body ran again (a retry may meet the other writer once more before it commits).
      expect(bodies).toBeGreaterThan(2);
    } finally {
      await close();
    }
  });
});
