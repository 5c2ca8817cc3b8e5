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

  it('marks the rows of a run another process streams as streamed elsewhere, until its preview is settled or taken back', async () => {
    const c = await conversation(first);
    const run = await second.runs.create(c, null);
    await second.outbox.addPreview(c, run.id, 'P1');
    const [answer] = await second.outbox.add(c, run.id, 'answer', [{ text: 'the answer' }]);
    expect(await first.outbox.nextPending(c)).toMatchObject({ id: answer, streamedElsewhere: true });
    expect(await second.outbox.nextPending(c)).toMatchObject({ id: answer, streamedElsewhere: false });
    await second.outbox.markStreamed(run.id, [{ id: answer!, platformMessageId: 'P1' }]);
    const [note] = await second.outbox.add(c, run.id, 'note', [{ text: 'a note' }]);
    expect(await first.outbox.nextPending(c)).toMatchObject({ id: note, streamedElsewhere: false });
  });
});
