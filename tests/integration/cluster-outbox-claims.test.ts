import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { closePostgres, openPostgres, type PgDb } from '../../src/db/pg-client.js';
import { outboxClaims } from '../../src/db/pg-schema.js';
import { silentLogger } from '../../src/logger.js';
import { createOutbox } from '../../src/outbox/outbox.js';
import { createPostgresStore, type PostgresStore } from '../../src/composition/pg-store.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { MemoryAdapter } from '../fakes/memory-adapter.js';
import { useTestDatabase } from '../support/test-database.js';
import { waitFor } from '../fakes/wait-for.js';

const database = useTestDatabase();
const LEASE_MS = 30_000;
const pools: PgDb[] = [];
const clock = new FakeClock();
let first: PostgresStore;
let second: PostgresStore;

beforeAll(async () => {
  if (database.skip) return;
  for (let i = 0; i < 2; i++) pools.push(await openPostgres(database.url, { poolSize: 4 }));
  first = createPostgresStore(pools[0]!, clock, { ownership: { processId: 'first', leaseMs: LEASE_MS } });
  second = createPostgresStore(pools[1]!, clock, { ownership: { processId: 'second', leaseMs: LEASE_MS } });
});
afterAll(async () => {
  await Promise.all(pools.map(closePostgres));
});

let seq = 0;
const conversation = (s: PostgresStore) =>
  s.conversations.ensure({ platform: 'slack', workspace: 'T1', channel: 'C1', thread: `${++seq}.0` });

/**
 * A conversation with a run that the second process runs, and an outbox on each process over an adapter of its
 * own: `mine` (the first process, posting through `here`) and `theirs` (the second, through `there`).
 */
async function twoOutboxes() {
  const ref = { platform: 'memory', workspace: 'T1', channel: 'C1', thread: `${++seq}.0` };
  const c = await first.conversations.ensure(ref);
  const run = await second.runs.create(c, null);
  const [here, there] = [new MemoryAdapter(), new MemoryAdapter()];
  const outboxOf = (s: PostgresStore, adapter: MemoryAdapter) =>
    createOutbox({
      store: s,
      clock: systemClock,
      logger: silentLogger(),
      adapters: new Map([['memory', adapter]]),
      refOf: (id) => s.conversations.refOf(id),
      onQuestionPosted: async () => undefined,
    });
  return { c, run, here, there, mine: outboxOf(first, here), theirs: outboxOf(second, there) };
}

describe.skipIf(database.skip)('outbox claims across processes', () => {
  it('lets another process take a claim over once its holder stopped renewing, and tells the old holder it lost it', async () => {
    const c = await conversation(first);
    const held = await first.outbox.claim(c);
    expect(held.kind).toBe('claimed');
    clock.advance(LEASE_MS - 1);
    expect(await second.outbox.claim(c)).toEqual({ kind: 'busy', until: clock.now() + 1 });
    clock.advance(2);
    const taken = await second.outbox.claim(c);
    expect(taken.kind).toBe('claimed');
    if (held.kind === 'claimed') {
      expect(held.claim.renewEveryMs).toBe(LEASE_MS / 3);
      expect(await held.claim.renew()).toBe(false);
      // A late release by the old holder leaves the new holder's claim alone.
      await held.claim.release();
    }
    expect((await first.outbox.claim(c)).kind).toBe('busy');
  });

  it('gives a drained conversation’s claim up in one statement only while none of its rows is pending', async () => {
    const c = await conversation(first);
    const held = await first.outbox.claim(c);
    if (held.kind !== 'claimed') throw new Error('the claim was not won');
    const [row] = await second.outbox.add(c, null, 'note', [{ text: 'recorded by another process' }]);
    // A row is pending: the claim stays, and another process still finds it busy.
    expect(await held.claim.releaseIfDrained?.()).toBe(false);
    expect((await second.outbox.claim(c)).kind).toBe('busy');
    await first.outbox.markPosted(row!, 'P1');
    expect(await held.claim.releaseIfDrained?.()).toBe(true);
    // Given up: another process claims at once; the old holder's late try gives up nothing of the new holder's.
    const taken = await second.outbox.claim(c);
    expect(taken.kind).toBe('claimed');
    expect(await held.claim.releaseIfDrained?.()).toBe(false);
    expect((await first.outbox.claim(c)).kind).toBe('busy');
  });

  it('hands a won claim the first pending row as `nextPending` reads it (retractions first, a run running elsewhere marked), and a lost one none', async () => {
    const c = await conversation(first);
    const won = await first.outbox.claim(c);
    if (won.kind !== 'claimed') throw new Error('the claim was not won');
    expect(won.claim.first, 'nothing pending').toBeNull();
    await won.claim.release();
    const run = await second.runs.create(c, null);
    const [answer] = await second.outbox.add(c, run.id, 'answer', [{ text: 'the answer' }]);
    const again = await first.outbox.claim(c);
    if (again.kind !== 'claimed') throw new Error('the claim was not won');
    expect(again.claim.first).toEqual(await first.outbox.nextPending(c));
    expect(again.claim.first).toMatchObject({ id: answer, conversationId: c, runId: run.id, runningElsewhere: true });
    expect(await second.outbox.claim(c)).toEqual({ kind: 'busy', until: clock.now() + LEASE_MS });
    await again.claim.release();
    const [retract] = await first.outbox.add(c, run.id, 'retract', [{ text: '' }]);
    const theirs = await second.outbox.claim(c);
    if (theirs.kind !== 'claimed') throw new Error('the claim was not won');
    // Due, and its run runs in the claiming process: tried right away, so the claim counted the try (attempts as before it).
    expect(theirs.claim.first).toMatchObject({ id: retract, purpose: 'retract', attempts: 0, notBefore: 0 });
    expect(theirs.claim.first).toEqual({
      ...(await second.outbox.nextPending(c)),
      attempts: 0,
      attemptCounted: true,
    });
    await theirs.claim.release();
  });

  it('counts the first try of the first pending row in the claim only when the turn tries it right away', async () => {
    const c = await conversation(first);
    const attemptsOf = async (id: number) =>
      Number((await pools[0]!.$client.query('select attempts from outbox where id = $1', [id])).rows[0].attempts);
    /** Claims `c` for the first process, and gives it up again: the first row as the claim handed it. */
    const claimFirst = async () => {
      const got = await first.outbox.claim(c);
      if (got.kind !== 'claimed') throw new Error('the claim was not won');
      await got.claim.release();
      return got.claim.first;
    };
    const settle = (id: number) => first.outbox.markPosted(id, `P${id}`);

    // Not due yet (a backoff): the turn sets a timer, tries nothing.
    const [later] = await first.outbox.add(c, null, 'update', [{ text: 'after a backoff' }]);
    await first.outbox.defer(later!, clock.now() + 5_000, 'socket hang up');
    expect(await claimFirst()).toMatchObject({ id: later, attempts: 0 });
    expect((await claimFirst())?.attemptCounted).toBeUndefined();
    expect(await attemptsOf(later!)).toBe(0);
    clock.advance(5_000);
    // Due now: counted by the claim, handed back with the attempts from before it.
    expect(await claimFirst()).toMatchObject({ id: later, attempts: 0, attemptCounted: true });
    expect(await attemptsOf(later!)).toBe(1);
    // Tried before: the delivery looks the post up before it counts, so the claim leaves the count to it.
    expect(await claimFirst()).toMatchObject({ id: later, attempts: 1 });
    expect((await claimFirst())?.attemptCounted).toBeUndefined();
    expect(await attemptsOf(later!)).toBe(1);
    await settle(later!);

    // Its run runs in the other process: the turn leaves it there.
    const run = await second.runs.create(c, null);
    const [theirs] = await second.outbox.add(c, run.id, 'answer', [{ text: 'their answer' }]);
    expect(await claimFirst()).toMatchObject({ id: theirs, runningElsewhere: true, attempts: 0 });
    expect((await claimFirst())?.attemptCounted).toBeUndefined();
    expect(await attemptsOf(theirs!)).toBe(0);
    await settle(theirs!);

    // A post of files reads its bytes (and may fail for lack of them) before it counts its try.
    const [files] = await first.outbox.add(c, null, 'files', [{ text: '' }]);
    expect(await claimFirst()).toMatchObject({ id: files, purpose: 'files', attempts: 0 });
    expect((await claimFirst())?.attemptCounted).toBeUndefined();
    expect(await attemptsOf(files!)).toBe(0);
    await settle(files!);

    // A lost claim reads and counts nothing.
    const [row] = await first.outbox.add(c, null, 'update', [{ text: 'a post' }]);
    const held = await second.outbox.claim(c);
    if (held.kind !== 'claimed') throw new Error('the claim was not won');
    expect((await first.outbox.claim(c)).kind).toBe('busy');
    expect(await attemptsOf(row!)).toBe(1);
    expect(held.claim.first).toMatchObject({ id: row, attempts: 0, attemptCounted: true });
    await held.claim.release();
  });

  it("does not hand over a row the claim's last holder posted while the claim waited for it: the turn reads the first row itself", async () => {
    const c = await conversation(first);
    const [posted] = await first.outbox.add(c, null, 'update', [{ text: 'posted by the second process' }]);
    const [next] = await first.outbox.add(c, null, 'update', [{ text: 'next' }]);
    const held = await second.outbox.claim(c);
    if (held.kind !== 'claimed') throw new Error('the claim was not won');
    // The second process marks its row posted and gives the claim up in one transaction (as a streamed answer's mark).
    const theirs = await pools[1]!.$client.connect();
    try {
      await theirs.query('begin');
      await theirs.query("update outbox set status = 'posted', platform_message_id = 'P1' where id = $1", [posted]);
      await theirs.query("delete from outbox_claims where conversation_id = $1 and owner = 'second'", [c]);
      // The first process's claim begins meanwhile (its snapshot reads the row as pending) and waits for that lock.
      const claiming = first.outbox.claim(c);
      await waitFor(
        async () =>
          (
            await pools[0]!.$client.query(
              "select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
            )
          ).rows.length > 0,
        5_000,
        'the claim to wait for the lock',
      );
      await theirs.query('commit');
      const got = await claiming;
      if (got.kind !== 'claimed') throw new Error('the claim was not won');
      expect(got.claim.first, 'not the row posted meanwhile: left for the turn to read').toBeUndefined();
      expect(await first.outbox.nextPending(c)).toMatchObject({ id: next, attempts: 0 });
      await got.claim.release();
    } finally {
      theirs.release();
    }
  });

  it('gives a process back the claim it already holds (a restart under the same name)', async () => {
    const c = await conversation(first);
    expect((await first.outbox.claim(c)).kind).toBe('claimed');
    expect((await first.outbox.claim(c)).kind).toBe('claimed');
    expect((await second.outbox.claim(c)).kind).toBe('busy');
  });

  it('leaves the rows of a run another process is running to that process, and hands them to anyone once it no longer runs there', async () => {
    const c = await conversation(first);
    const run = await second.runs.create(c, null);
    const [answer] = await second.outbox.add(c, run.id, 'answer', [{ text: 'the answer' }]);
    expect(await first.outbox.nextPending(c)).toMatchObject({ id: answer, runningElsewhere: true });
    expect(await second.outbox.nextPending(c)).toMatchObject({ id: answer, runningElsewhere: false });
    await second.runs.transition(run.id, ['running'], 'completed');
    expect(await first.outbox.nextPending(c)).toMatchObject({ id: answer, runningElsewhere: false });
    const [note] = await first.outbox.add(c, null, 'note', [{ text: 'a note without a run' }]);
    await second.outbox.markPosted(answer!, 'P1');
    expect(await second.outbox.nextPending(c)).toMatchObject({ id: note, runningElsewhere: false });
  });

  it('posts a run’s answer from the process running it, even when another process holds the claim as it is recorded', async () => {
    const { c, run, here, there, mine, theirs } = await twoOutboxes();
    let open!: () => void;
    here.postGate = new Promise<void>((resolve) => (open = resolve));
    await Promise.all([mine.start(), theirs.start()]);
    try {
      // This process holds the claim while its note is on its way; the run's process records its answer meanwhile.
      const note = await mine.record(c, null, { purpose: 'note', text: 'queued' });
      await waitFor(
        async () =>
          (await pools[0]!.select().from(outboxClaims).where(eq(outboxClaims.conversationId, c)))[0]?.owner === 'first',
        20_000,
        'this process to hold the claim',
      );
      const answer = await theirs.record(c, run.id, { purpose: 'answer', text: 'the answer' });
      open();
      expect(await mine.delivered(note)).not.toBeNull();
      expect(await theirs.delivered(answer)).not.toBeNull();
      expect(here.posts.map((p) => p.text)).toEqual(['queued']);
      expect(there.posts.map((p) => p.text)).toEqual(['the answer']);
    } finally {
      open();
      await Promise.all([mine.stop(1000), theirs.stop(1000)]);
    }
  }, 60_000);

  it('tells a wait on a row recorded here that another process posted it, though the wait skipped its first read (its worker was running)', async () => {
    const { c, run, here, there, mine, theirs } = await twoOutboxes();
    await mine.start();
    try {
      // Recorded here for a run the other process runs: this worker leaves it to that process.
      const ticket = await mine.record(c, run.id, { purpose: 'answer', text: 'the answer' });
      const delivered = mine.delivered(ticket);
      await theirs.start();
      expect(await delivered).toBe(there.posts[0]?.id);
      expect(there.posts.map((p) => p.text)).toEqual(['the answer']);
      expect(here.posts).toEqual([]);
    } finally {
      await Promise.all([mine.stop(1000), theirs.stop(1000)]);
    }
  }, 60_000);
});
