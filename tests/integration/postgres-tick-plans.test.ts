import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunLeases } from '../../src/cluster/run-leases.js';
import { closePostgres, openPostgres, type PgDb } from '../../src/db/pg-client.js';
import { conversations, runs } from '../../src/db/pg-schema.js';
import { createPgScheduleStore } from '../../src/schedules/store/pg-schedule-store.js';
import { createPgOutboxStore } from '../../src/store/postgres/pg-outbox-store.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { useTestDatabase } from '../support/test-database.js';

/*
 * The statements a process sends at every cluster tick (issue 40, eighth round): PostgreSQL must settle on one
 * generic plan for each instead of planning it anew at every call. It does so only when the plan it keeps is as
 * cheap as the custom ones; a status bound as a parameter kept it from the partial indexes (of running runs, of
 * pending launches and rows), so every look was planned again.
 */

const database = useTestDatabase();
let db: PgDb;
beforeAll(async () => {
  if (database.skip) return;
  // One connection: the prepared statements and their plan counts read below are that connection's.
  db = await openPostgres(database.url, { poolSize: 1 });
  // Finished runs, as a database that has worked a while holds: the partial index of running runs is what makes a look cheap.
  const ids = Array.from({ length: 300 }, (_, i) => i);
  await db.insert(conversations).values(
    ids.map((i) => ({
      id: `slack:T1:C1:${i}.0`,
      platform: 'slack',
      workspace: 'T1',
      channel: 'C1',
      thread: `${i}.0`,
      createdAt: 1,
      updatedAt: 1,
    })),
  );
  await db.insert(runs).values(
    ids.map((i) => ({
      id: `done-${i}`,
      conversationId: `slack:T1:C1:${i}.0`,
      status: i < 2 ? ('running' as const) : ('completed' as const),
      owner: 'p1',
      leaseUntil: 9e15,
      startedAt: 1,
      updatedAt: 1,
    })),
  );
  await db.execute('analyze');
});
afterAll(async () => {
  if (db) await closePostgres(db);
});

/** The connection's prepared statements whose text holds `fragment`, with how often each was planned which way. */
async function plansOf(fragment: string): Promise<{ generic: number; custom: number }[]> {
  const { rows } = await db.$client.query<{ generic_plans: string; custom_plans: string }>(
    'select generic_plans, custom_plans from pg_prepared_statements where position($1 in statement) > 0',
    [fragment],
  );
  return rows.map((r) => ({ generic: Number(r.generic_plans), custom: Number(r.custom_plans) }));
}

describe.skipIf(database.skip)('the tick statements on PostgreSQL', () => {
  it('are planned once and then run on the plan PostgreSQL keeps', async () => {
    const clock = new FakeClock();
    const leases = createRunLeases(db, clock);
    const schedules = createPgScheduleStore(db);
    const outbox = createPgOutboxStore(db, clock, null);
    const CALLS = 12;
    for (let i = 0; i < CALLS; i++) {
      // Renewals of one run and of two: one statement text whatever the number of runs.
      expect(await leases.renew('p1', i % 2 === 0 ? ['done-0'] : ['done-0', 'done-1'], 30_000)).toContain('done-0');
      expect(await leases.expired(clock.now())).toEqual([]);
      expect(await schedules.listActiveDueBy(clock.now())).toEqual([]);
      expect(await schedules.dueLaunches(clock.now(), 50)).toEqual([]);
      expect(await schedules.nextLaunchDue()).toBeNull();
      expect(await outbox.pendingConversations()).toEqual([]);
    }
    for (const fragment of [
      'update "runs" set "lease_until"',
      'select "id", "conversation_id", "owner", "lease_until" from "runs"',
      'from "schedules"',
      'select "id" from "schedule_launches"',
      'select min("not_before") from "schedule_launches"',
      'select distinct "conversation_id" from "outbox"',
    ]) {
      // PostgreSQL plans a prepared statement's first five calls for their values (none for a statement without
      // parameters), then keeps a generic plan when it is no dearer: from then on, no planning.
      const plans = await plansOf(fragment);
      expect(plans, fragment).toHaveLength(1);
      const { custom, generic } = plans[0]!;
      expect({ fragment, custom: Math.min(custom, 5), generic }).toEqual({ fragment, custom, generic: CALLS - custom });
    }
  });
});
