import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunPosts } from '../../src/agent/agent-types.js';
import { createPostgresStore, type PostgresStore } from '../../src/composition/pg-store.js';
import { closePostgres, openPostgres, type PgDb } from '../../src/db/pg-client.js';
import type { PendingQuestion, RunRow, TaskRow } from '../../src/db/schema.js';
import { RunFencedError } from '../../src/run-records/run-fence.js';
import { NextClaims, type NextTicket } from '../../src/runs/runtime/next-claims.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { waitFor } from '../fakes/wait-for.js';
import { gate } from './harness.js';
import { coordinatorSettler } from '../support/coordinator-settler.js';
import { statementLog } from '../support/statement-log.js';
import { useTestDatabase } from '../support/test-database.js';

/*
 * Issue 40, eleventh round: a run's end on PostgreSQL writes its settlement and claims the next work in one call
 * (`errand_settle_run_next`, migration 0019): the pump's due-work read inside it, the ended run's conversation
 * first, and errand_claim_task for this process. Store-level here; the coordinator's handoff is
 * postgres-settle-next-handoff.test.ts's.
 */

const database = useTestDatabase();
let db: PgDb;
let store: PostgresStore;
const clock = new FakeClock(1_000);
const log = statementLog();

beforeAll(async () => {
  if (database.skip) return;
  db = await openPostgres(database.url, { poolSize: 4 });
  log.watch(db.$client);
  store = createPostgresStore(db, clock, { ownership: { processId: 'p1', leaseMs: 30_000 } });
});
afterAll(async () => {
  if (db) await closePostgres(db);
});
beforeEach(async () => {
  if (database.skip) return;
  // Each test sees only its own conversations' work: what earlier tests left ready is put aside.
  await db.execute(sql`update tasks set status = 'cancelled' where status = 'pending'`);
  await db.execute(sql`update runs set status = 'cancelled' where status in ('running', 'waiting_user')`);
});

let seq = 0;
const conversation = () =>
  store.conversations.ensure({ platform: 'memory', workspace: 'W1', channel: 'C1', thread: `N${++seq}` });
async function add(conversationId: string, title = 'next', blockedBy: number[] = []): Promise<TaskRow> {
  const r = await store.tasks.add({ conversationId, title, description: title, createdBy: 'user', blockedBy });
  if (!r.ok) throw new Error(r.error);
  return r.task;
}
/** A conversation with a claimed task and its running run (owned by p1). */
async function running(): Promise<{ conversationId: string; task: TaskRow; run: RunRow }> {
  const conversationId = await conversation();
  await add(conversationId, 'first');
  const claimed = await store.claims!.claimNext(conversationId, false);
  if (!claimed) throw new Error('nothing claimed');
  return { conversationId, task: claimed.task, run: claimed.run };
}
/** A ready conversation: a pending task and no active run. */
async function ready(): Promise<string> {
  const conversationId = await conversation();
  await add(conversationId);
  clock.advance(1);
  return conversationId;
}

/** The settler as the coordinator has it, the run's fenced writes, and a ticket as the coordinator takes it. */
async function settlerFor(run: RunRow, busy: string[] = [], maxRuns = 8) {
  const notes: string[] = [];
  const posts = {
    atomically: (w: Parameters<RunPosts['atomically']>[0]) => store.atomically(w),
    // The note of an end that has one (a retry's), kept here: its path is a transaction, which is what is checked.
    record: async (_c: string, _r: string, intent: { text?: string }) => void notes.push(intent.text ?? ''),
  } as unknown as RunPosts;
  const { settler, writes, refusals } = await coordinatorSettler(store, run, { posts, clock });
  const active = new Map<string, unknown>([[run.conversationId, {}], ...busy.map((b) => [b, {}] as const)]);
  const ticket: NextTicket = new NextClaims().ticket(run.conversationId, active, new Set(), maxRuns);
  const task = run.taskId === null ? null : await store.tasks.get(run.taskId);
  const end = () =>
    settler.settle(run.conversationId, run, task, { kind: 'completed', summary: 'done' }, null, writes, ticket);
  return { settler, writes, ticket, end, refusals, notes };
}

describe.skipIf(database.skip)("a run's end that claims the next work on PostgreSQL (issue 40, eleventh round)", () => {
  it('settles and claims the oldest ready conversation for this process in one statement: no due read, no claim of its own', async () => {
    const { run, task } = await running();
    const [a, b] = [await ready(), await ready()];
    const { settler, writes, ticket } = await settlerFor(run);
    const statements = await log.of(() =>
      settler.settle(run.conversationId, run, task, { kind: 'completed', summary: 'done' }, null, writes, ticket),
    );
    expect(statements).toEqual([expect.stringMatching(/^select errand_settle_run_next\(/)]);
    expect(await store.runs.get(run.id)).toMatchObject({ status: 'completed', summary: 'done' });
    expect(await store.tasks.get(task.id)).toMatchObject({ status: 'completed' });
    const claimed = ticket.answer!.claimed!;
    expect(claimed.run).toMatchObject({ conversationId: a, status: 'running', owner: 'p1', leaseGeneration: 1 });
    expect(claimed.fence).toEqual({ runId: claimed.run.id, owner: 'p1', generation: 1 });
    expect(claimed.task).toMatchObject({ conversationId: a, status: 'in_progress', attempts: 1 });
    expect(await store.runs.active(a)).toMatchObject({ id: claimed.run.id, leaseUntil: clock.now() + 30_000 });
    // Its goal message is written as a claim writes it; b is ready too, so the pump has more to look at.
    expect((await store.transcript.recent(a, 5)).map((m) => m.runId)).toEqual([claimed.run.id]);
    expect(ticket.answer!.more).toBe(true);
    expect((await store.tasks.dueWork!(8, new Set([a]))).ready).toEqual([b]);
  });

  it('with nothing ready, sends the one statement, claims nothing and has nothing more', async () => {
    const { run } = await running();
    const { end, ticket } = await settlerFor(run);
    const statements = await log.of(() => end());
    expect(statements).toEqual([expect.stringMatching(/^select errand_settle_run_next\(/)]);
    expect(ticket.answer).toEqual({ claimed: null, more: false });
    expect(await store.runs.get(run.id)).toMatchObject({ status: 'completed' });
  });

  it("takes the ended run's conversation first (the pump's prefer), even behind older ready work, and skips the busy ones", async () => {
    const { run } = await running();
    const older = await ready();
    const busy = await ready();
    const own = await add(run.conversationId, 'own next');
    const { end, ticket } = await settlerFor(run, [busy], 2);
    await end();
    expect(ticket.answer!.claimed!.task.id).toBe(own.id);
    // One slot once the run has left (two at most, one busy elsewhere): its own, and nothing more for the pump.
    expect(ticket.ask).toMatchObject({ slots: 1 });
    expect(ticket.answer!.more).toBe(false);
    const wider = await running();
    await add(wider.conversationId, 'next there');
    const second = await settlerFor(wider.run, [], 8);
    await second.end();
    expect(second.ticket.answer!.claimed!.run.conversationId).toBe(wider.conversationId);
    expect(second.ticket.answer!.more).toBe(true);
    expect(await store.runs.active(older)).toBeNull();
    expect(await store.runs.active(busy)).toBeNull();
  });

  it('claims as the pump would, for every cut and exclusion (the read is dueWork’s)', async () => {
    const [a, b, c] = [await ready(), await ready(), await ready()];
    for (const [busy, max] of [
      [[], 8],
      [[a], 8],
      [[a, b], 3],
      [[b], 2],
      [[a, b, c], 8],
    ] as const) {
      const { run } = await running();
      const { end, ticket } = await settlerFor(run, [...busy], max);
      const due = await store.tasks.dueWork!(ticket.ask.slots, new Set([...busy, run.conversationId]));
      await end();
      expect(ticket.answer!.claimed?.run.conversationId ?? null).toBe(due.ready[0] ?? null);
      expect(ticket.answer!.more).toBe(due.ready.length > 1);
      // Put back as it was for the next round.
      if (ticket.answer!.claimed) {
        const { run: next, task } = ticket.answer!.claimed;
        await db.execute(sql`update runs set status = 'cancelled' where id = ${next.id}`);
        await db.execute(sql`update tasks set status = 'pending', attempts = 0 where id = ${task.id}`);
      }
    }
  });

  it('claims nothing while a waiting run is due to resume: those go first, in the pump', async () => {
    const waiting = await running();
    const question: PendingQuestion = {
      id: 'q1',
      question: 'which?',
      options: [],
      toolCallId: 'call-1',
      askedAt: clock.now(),
      messageId: null,
      userId: null,
    };
    expect(await store.runs.park(waiting.run.id, question, clock.now() - 1)).toBe(true);
    const r = await ready();
    const { run } = await running();
    const { end, ticket } = await settlerFor(run);
    await end();
    expect(ticket.answer).toEqual({ claimed: null, more: true });
    expect(await store.runs.active(r)).toBeNull();
  });

  it("refuses a stale owner's end in that one statement and claims nothing", async () => {
    const { run } = await running();
    const r = await ready();
    const { end, ticket, refusals } = await settlerFor(run);
    await db.execute(sql`update runs set owner = 'p2', lease_generation = lease_generation + 1 where id = ${run.id}`);
    const statements = await log.of(() => expect(end()).rejects.toBeInstanceOf(RunFencedError));
    expect(ticket.ask.exclude.has(run.conversationId)).toBe(false);
    expect(statements).toEqual([expect.stringMatching(/^select errand_settle_run_next\(/)]);
    expect(refusals).toHaveLength(1);
    expect(ticket.answer).toBeUndefined();
    expect(await store.runs.get(run.id)).toMatchObject({ status: 'running', owner: 'p2' });
    expect(await store.runs.active(r)).toBeNull();
  });

  it('claims nothing when the run had ended already (a stop got there first): the pump looks', async () => {
    const { run } = await running();
    const r = await ready();
    const { writes, ticket } = await settlerFor(run);
    expect(await store.runs.transition(run.id, ['running'], 'cancelled')).toBe(true);
    const answered = await writes.settleNext!(
      { conversationId: run.conversationId, from: ['running'], to: 'completed', task: null },
      ticket.ask,
    );
    expect(answered).toEqual({ applied: false, claimed: null, more: true });
    expect(await store.runs.active(r)).toBeNull();
  });

  it('a requeued task takes the settling transaction, and the call claims nothing', async () => {
    const { run, task } = await running();
    await ready();
    const { settler, writes, ticket, notes } = await settlerFor(run);
    const statements = await log.of(() =>
      settler.settle(
        run.conversationId,
        run,
        task,
        { kind: 'failed', reason: 'rate limited', transient: true },
        null,
        writes,
        ticket,
      ),
    );
    expect(statements.some((s) => s.includes('errand_settle_run'))).toBe(false);
    expect(notes).toHaveLength(1);
    expect(ticket.answer).toBeUndefined();
    expect(await store.tasks.get(task.id)).toMatchObject({ status: 'pending' });
  });

  it('when the claim finds its conversation taken meanwhile (EB001), the call rolls back and the end is written alone', async () => {
    const { run } = await running();
    const target = await ready();
    // Another writer inserts an active run there without the conversation's lock and holds it uncommitted.
    const hold = gate();
    const inserted = gate();
    const other = db.transaction(async (tx) => {
      await tx.execute(
        sql`insert into runs (id, conversation_id, status, started_at, updated_at, lease_generation) values ('intruder', ${target}, 'running', 1, 1, 0)`,
      );
      inserted.open();
      await hold.promise;
    });
    await inserted.promise;
    const { end, ticket } = await settlerFor(run);
    const ending = end();
    // The call waits on the uncommitted run's index entry; once it commits, the claim raises EB001.
    const waiting = async () =>
      (
        await db.execute(
          sql`select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query like '%errand_settle_run_next%'`,
        )
      ).rows.length;
    await waitFor(async () => (await waiting()) === 1, 10_000, 'the claim waiting on the uncommitted run');
    hold.open();
    await other;
    await ending;
    expect(ticket.answer).toEqual({ claimed: null, more: true });
    expect(await store.runs.get(run.id)).toMatchObject({ status: 'completed' });
    expect((await store.runs.active(target))?.id).toBe('intruder');
    expect(await db.execute(sql`select status, attempts from tasks where conversation_id = ${target}`)).toMatchObject({
      rows: [{ status: 'pending', attempts: 0 }],
    });
  });
});
