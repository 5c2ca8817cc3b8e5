import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunLeases } from '../../src/cluster/run-leases.js';
import { closePostgres, openPostgres, type PgDb } from '../../src/db/pg-client.js';
import { conversations, runs } from '../../src/db/pg-schema.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { useTestDatabase } from '../support/test-database.js';

const database = useTestDatabase();
const LEASE_MS = 30_000;
const pools: PgDb[] = [];
beforeAll(async () => {
  if (database.skip) return;
  for (let i = 0; i < 3; i++) pools.push(await openPostgres(database.url, { poolSize: 4 }));
});
afterAll(async () => {
  await Promise.all(pools.map(closePostgres));
});

let seq = 0;
/** A run in its own conversation, as the store would insert it: owned, with a lease ending at `leaseUntil`. */
async function insertRun(
  status: 'running' | 'waiting_user' | 'completed',
  owner: string | null,
  leaseUntil: number | null,
): Promise<string> {
  const id = `run-${++seq}`;
  const conversationId = `slack:T1:C1:${seq}.0`;
  await pools[0]!.insert(conversations).values({
    id: conversationId,
    platform: 'slack',
    workspace: 'T1',
    channel: 'C1',
    thread: `${seq}.0`,
    createdAt: 1,
    updatedAt: 1,
  });
  await pools[0]!.insert(runs).values({ id, conversationId, status, owner, leaseUntil, startedAt: 1, updatedAt: 1 });
  return id;
}

async function ownerOf(id: string): Promise<{ owner: string | null; leaseUntil: number | null }> {
  const [row] = await pools[0]!
    .select({ owner: runs.owner, leaseUntil: runs.leaseUntil })
    .from(runs)
    .where(eq(runs.id, id));
  return row!;
}

describe.skipIf(database.skip)('run leases', () => {
  // Runs first: the runs of the later tests stay in the file's database.
  it('lists running runs whose lease ended, not fresh leases, waiting or finished runs', async () => {
    const clock = new FakeClock();
    const now = clock.now();
    const stale = await insertRun('running', 'dead', now - 1);
    const unleased = await insertRun('running', null, null);
    const fresh = await insertRun('running', 'alive', now + LEASE_MS);
    await insertRun('waiting_user', 'dead', now - 1);
    await insertRun('completed', 'dead', now - 1);
    const expired = await createRunLeases(pools[1]!, clock).expired(now);
    expect(expired.map((r) => r.id)).toEqual([unleased, stale]);
    expect(expired[1]).toMatchObject({
      owner: 'dead',
      leaseUntil: now - 1,
      conversationId: expect.stringMatching(/^slack:T1:C1:/),
    });
    expect(expired.map((r) => r.id)).not.toContain(fresh);
  });

  it('renews only the runs the owner still holds, and says which those are', async () => {
    const clock = new FakeClock();
    const now = clock.now();
    const mine = await insertRun('running', 'proc-a', now + 1000);
    const theirs = await insertRun('running', 'proc-b', now + 1000);
    const ended = await insertRun('completed', 'proc-a', now + 1000);
    const leases = createRunLeases(pools[1]!, clock);
    clock.advance(500);
    expect(await leases.renew('proc-a', [mine, theirs, ended], LEASE_MS)).toEqual([mine]);
    expect(await ownerOf(mine)).toEqual({ owner: 'proc-a', leaseUntil: clock.now() + LEASE_MS });
    expect(await ownerOf(theirs)).toEqual({ owner: 'proc-b', leaseUntil: now + 1000 });
    expect(await leases.renew('proc-a', [], LEASE_MS)).toEqual([]);
  });

  it('gives an expired run to exactly one of many processes trying to take it over at once', async () => {
    const clock = new FakeClock();
    const lease = clock.now() - 1;
    const run = await insertRun('running', 'dead', lease);
    const contenders = Array.from({ length: 12 }, (_, i) => ({
      owner: `proc-${i}`,
      leases: createRunLeases(pools[i % 3]!, clock),
    }));
    const results = await Promise.all(contenders.map((c) => c.leases.takeOver(run, c.owner, lease, LEASE_MS)));
    expect(results.filter(Boolean)).toHaveLength(1);
    const winner = contenders[results.indexOf(true)]!.owner;
    expect(await ownerOf(run)).toEqual({ owner: winner, leaseUntil: clock.now() + LEASE_MS });
    // The dead owner, coming back, finds the run is no longer its own.
    expect(await createRunLeases(pools[0]!, clock).renew('dead', [run], LEASE_MS)).toEqual([]);
  });

  it('refuses a takeover while the lease still holds, or after the owner renewed it', async () => {
    const clock = new FakeClock();
    const run = await insertRun('running', 'proc-a', clock.now() + 1000);
    const leases = createRunLeases(pools[2]!, clock);
    expect(await leases.takeOver(run, 'proc-b', clock.now() + 1000, LEASE_MS)).toBe(false);
    clock.advance(2000);
    const seen = (await leases.expired(clock.now())).find((r) => r.id === run);
    expect(seen).toMatchObject({ owner: 'proc-a', leaseUntil: clock.now() - 1000 });
    await createRunLeases(pools[0]!, clock).renew('proc-a', [run], LEASE_MS);
    expect(await leases.takeOver(run, 'proc-b', seen!.leaseUntil, LEASE_MS)).toBe(false);
    expect((await ownerOf(run)).owner).toBe('proc-a');
  });

  it('takes over a running run that never had a lease', async () => {
    const clock = new FakeClock();
    const run = await insertRun('running', null, null);
    const leases = createRunLeases(pools[1]!, clock);
    expect(await leases.takeOver(run, 'proc-c', null, LEASE_MS)).toBe(true);
    expect(await leases.takeOver(run, 'proc-d', null, LEASE_MS)).toBe(false);
  });

  it('adopts a run just claimed whoever held it before, but not one that is no longer running', async () => {
    const clock = new FakeClock();
    const leases = createRunLeases(pools[1]!, clock);
    const resumed = await insertRun('running', 'proc-a', clock.now() + 1000);
    expect(await leases.adopt(resumed, 'proc-b', LEASE_MS)).toBe(true);
    expect(await ownerOf(resumed)).toEqual({ owner: 'proc-b', leaseUntil: clock.now() + LEASE_MS });
    const stopped = await insertRun('completed', null, null);
    expect(await leases.adopt(stopped, 'proc-b', LEASE_MS)).toBe(false);
    expect(await leases.states([resumed, stopped])).toEqual(
      expect.arrayContaining([
        { id: resumed, status: 'running', owner: 'proc-b' },
        { id: stopped, status: 'completed', owner: null },
      ]),
    );
  });

  it('releases the leases of an owner that stops, so its running runs are expired at once', async () => {
    const clock = new FakeClock();
    const leases = createRunLeases(pools[2]!, clock);
    const running = await insertRun('running', 'proc-r', clock.now() + LEASE_MS);
    const waiting = await insertRun('waiting_user', 'proc-r', clock.now() + LEASE_MS);
    expect(await leases.release('proc-r')).toBe(1);
    const expired = (await leases.expired(clock.now())).map((r) => r.id);
    expect(expired).toContain(running);
    expect(expired).not.toContain(waiting);
  });
});
