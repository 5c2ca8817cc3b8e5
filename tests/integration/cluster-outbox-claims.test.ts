import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closePostgres, openPostgres, type PgDb } from '../../src/db/pg-client.js';
import { createPostgresStore, type PostgresStore } from '../../src/store/postgres/pg-store.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { useTestDatabase } from '../support/test-database.js';

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
const conversation = (s: PostgresStore) => s.conversations.ensure({ platform: 'slack', workspace: 'T1', channel: 'C1', thread: `${++seq}.0` });

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
});
