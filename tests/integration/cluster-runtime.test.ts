import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { createPostgresCluster } from '../../src/cluster/cluster-runtime.js';
import { closePostgres, openPostgres, type PgDb } from '../../src/db/pg-client.js';
import { conversations, runs } from '../../src/db/pg-schema.js';
import { createLogger } from '../../src/logger.js';
import type { Cluster, ClusterHooks } from '../../src/runtime/process/cluster-hooks.js';
import type { RunLoss } from '../../src/runs/runtime/cluster-membership.js';
import type { InterruptedRun } from '../../src/runtime/restarts/recovery.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { waitFor } from '../fakes/wait-for.js';
import { useTestDatabase } from '../support/test-database.js';

const database = useTestDatabase();
const logger = createLogger('silent');
const LEASE_MS = 30_000;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** One simulated Errand process: its own pool and cluster runtime, with hooks that record what they are asked. */
interface Proc {
  id: string;
  db: PgDb;
  cluster: Cluster;
  hooks: ClusterHooks;
  pumps: number;
  recovered: string[];
}

async function processWith(id: string, clock: FakeClock): Promise<Proc> {
  const db = await openPostgres(database.url, { poolSize: 3 });
  const proc: Proc = {
    id,
    db,
    cluster: createPostgresCluster({ db, url: database.url, processId: id, clock, logger, leaseMs: LEASE_MS }),
    pumps: 0,
    recovered: [],
    hooks: null!,
  };
  proc.hooks = {
    pump: async () => void proc.pumps++,
    recoverAll: () => Promise.reject(new Error('a cluster never recovers every running run')),
    // What the app's recovery does, reduced to the run row: interrupted, once.
    recoverRun: async (runId): Promise<InterruptedRun | null> => {
      const rows = await db
        .update(runs)
        .set({ status: 'interrupted' })
        .where(eq(runs.id, runId))
        .returning({ conversationId: runs.conversationId });
      if (rows.length === 0) return null;
      proc.recovered.push(runId);
      return { conversationId: rows[0]!.conversationId, taskId: null, action: 'resumed', attempts: 1 };
    },
  };
  cleanups.push(async () => {
    await proc.cluster.stop();
    await closePostgres(db);
  });
  return proc;
}

let seq = 0;
async function insertRun(
  db: PgDb,
  owner: string | null,
  leaseUntil: number | null,
): Promise<{ id: string; conversationId: string }> {
  const n = ++seq;
  const conversationId = `slack:T024BE7LD:C024BE91L:1700000000.${String(n).padStart(6, '0')}`;
  await db.insert(conversations).values({
    id: conversationId,
    platform: 'slack',
    workspace: 'T024BE7LD',
    channel: 'C024BE91L',
    thread: `1700000000.${n}`,
    createdAt: 1,
    updatedAt: 1,
  });
  const id = `run-rt-${n}`;
  await db
    .insert(runs)
    .values({ id, conversationId, status: 'running', owner, leaseUntil, startedAt: 1, updatedAt: 1 });
  return { id, conversationId };
}

async function rowOf(db: PgDb, id: string) {
  const [row] = await db
    .select({ status: runs.status, owner: runs.owner, leaseUntil: runs.leaseUntil })
    .from(runs)
    .where(eq(runs.id, id));
  return row!;
}

describe.skipIf(database.skip)('cluster runtime on PostgreSQL', () => {
  // Runs first: later tests leave runs behind in the file's database.
  it('has exactly one of two processes take over and recover a run whose owner stopped renewing', async () => {
    const clock = new FakeClock();
    const a = await processWith('proc-a', clock);
    const b = await processWith('proc-b', clock);
    const run = await insertRun(a.db, 'dead-process', clock.now() - 1);
    const results = await Promise.all([a.cluster.recover(a.hooks), b.cluster.recover(b.hooks)]);
    expect(results.flat()).toEqual([
      { conversationId: run.conversationId, taskId: null, action: 'resumed', attempts: 1 },
    ]);
    expect([...a.recovered, ...b.recovered]).toEqual([run.id]);
    const row = await rowOf(a.db, run.id);
    expect(row.status).toBe('interrupted');
    expect(row.owner).toBe(a.recovered.length === 1 ? 'proc-a' : 'proc-b');
  });

  it('leaves a running run without a lease alone at the first look (its owner is adopting it) and takes it over at the next', async () => {
    const clock = new FakeClock();
    const a = await processWith('proc-a', clock);
    const run = await insertRun(a.db, null, null);
    expect(await a.cluster.recover(a.hooks)).toEqual([]);
    await a.cluster.start(a.hooks);
    clock.advance(LEASE_MS / 3);
    await waitFor(() => a.recovered.length === 1, 10_000, 'the takeover at the next look');
    expect((await rowOf(a.db, run.id)).status).toBe('interrupted');
    await waitFor(() => a.pumps > 0, 10_000, 'a pump for the re-queued work');
  });

  it('keeps the lease of a run it executes, and gives the run up as taken over once another process owns it', async () => {
    const clock = new FakeClock();
    const a = await processWith('proc-a', clock);
    const run = await insertRun(a.db, null, null);
    await a.cluster.start(a.hooks);
    const lost: RunLoss[] = [];
    a.cluster.runStarted(run.id, run.conversationId, (why) => void lost.push(why));
    await waitFor(async () => (await rowOf(a.db, run.id)).owner === 'proc-a', 10_000, 'the run adopted');
    const armed = clock.pendingTimers();
    clock.advance(LEASE_MS / 3);
    const renewedUntil = clock.now() + LEASE_MS;
    await waitFor(async () => (await rowOf(a.db, run.id)).leaseUntil === renewedUntil, 10_000, 'the lease renewed');
    // The tick goes on after the renewal (takeover look, schedules) and arms the next one only then: advancing the
    // clock before that would arm it past the advance, and it would never come.
    await waitFor(() => clock.pendingTimers() === armed, 10_000, 'the next tick armed');
    expect(lost).toEqual([]);
    // Another process took it over (this one looked dead to it).
    await a.db.update(runs).set({ owner: 'proc-b' }).where(eq(runs.id, run.id));
    clock.advance(LEASE_MS / 3);
    await waitFor(() => lost.length > 0, 10_000, 'the run given up');
    expect(lost).toEqual(['taken_over']);
    expect(a.recovered).toEqual([]);
  });

  it('gives up a run stopped from another process as soon as the stop wake-up arrives, without waiting for a renewal', async () => {
    const clock = new FakeClock();
    const a = await processWith('proc-a', clock);
    const b = await processWith('proc-b', clock);
    const run = await insertRun(a.db, null, null);
    await a.cluster.start(a.hooks);
    await b.cluster.start(b.hooks);
    const lost: RunLoss[] = [];
    a.cluster.runStarted(run.id, run.conversationId, (why) => void lost.push(why));
    await waitFor(async () => (await rowOf(a.db, run.id)).owner === 'proc-a', 10_000, 'the run adopted');
    await b.db.update(runs).set({ status: 'cancelled' }).where(eq(runs.id, run.id));
    b.cluster.wake('stop', run.conversationId);
    await waitFor(() => lost.length > 0, 10_000, 'the stopped run given up');
    expect(lost).toEqual(['stopped']);
  });

  it('pumps when another process reports a queued task or a recorded answer', async () => {
    const clock = new FakeClock();
    const a = await processWith('proc-a', clock);
    const b = await processWith('proc-b', clock);
    await a.cluster.start(a.hooks);
    await b.cluster.start(b.hooks);
    a.cluster.wake('task', 'slack:T024BE7LD:C024BE91L:1700000001.000100');
    await waitFor(() => b.pumps > 0, 10_000, 'the other process to pump for the task');
    b.cluster.wake('answer', 'slack:T024BE7LD:C024BE91L:1700000001.000100');
    await waitFor(() => a.pumps > 0, 10_000, 'the first process to pump for the answer');
  });

  it('hands its unfinished runs to another process when it stops, without waiting for the lease to run out', async () => {
    const clock = new FakeClock();
    const a = await processWith('proc-a', clock);
    const b = await processWith('proc-b', clock);
    const run = await insertRun(a.db, null, null);
    await a.cluster.start(a.hooks);
    a.cluster.runStarted(run.id, run.conversationId, () => undefined);
    await waitFor(async () => (await rowOf(a.db, run.id)).owner === 'proc-a', 10_000, 'the run adopted');
    // (Runs left by earlier tests in this database may be taken over too: only this one is looked at.)
    await b.cluster.recover(b.hooks);
    expect(b.recovered).not.toContain(run.id);
    await a.cluster.stop();
    await b.cluster.recover(b.hooks);
    expect(b.recovered).toContain(run.id);
  });
});
