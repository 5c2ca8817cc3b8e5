import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunPosts } from '../../src/agent/agent-types.js';
import { createPostgresStore, type PostgresStore } from '../../src/composition/pg-store.js';
import { closePostgres, openPostgres, type PgDb } from '../../src/db/pg-client.js';
import type { PendingQuestion, RunRow, TaskRow } from '../../src/db/schema.js';
import { RunFencedError } from '../../src/run-records/run-fence.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { waitFor } from '../fakes/wait-for.js';
import { coordinatorSettler } from '../support/coordinator-settler.js';
import { statementLog } from '../support/statement-log.js';
import { useTestDatabase } from '../support/test-database.js';

/*
 * Issue 40, sixth round: a run's settlement on PostgreSQL is one call of `errand_settle_run` (migration
 * 0018_settle_run), and the pump's reads one statement (`TaskService.dueWork`). The statements are read off the
 * pooled connections, as in postgres-statements.test.ts.
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

/** The statements `work` sends. */
const statementsOf = (work: () => Promise<unknown>) => log.of(work);

let seq = 0;
/** A conversation with a claimed task, `dependents` pending tasks naming it as blocker, and its running run. */
async function claimed(
  dependents = 0,
): Promise<{ conversationId: string; task: TaskRow; run: RunRow; after: TaskRow[] }> {
  const conversationId = await store.conversations.ensure({
    platform: 'memory',
    workspace: 'W1',
    channel: 'C1',
    thread: `S${++seq}`,
  });
  const first = await store.tasks.add({ conversationId, title: 'a', description: 'a', createdBy: 'user' });
  if (!first.ok) throw new Error(first.error);
  const after: TaskRow[] = [];
  for (let i = 0; i < dependents; i++) {
    const r = await store.tasks.add({
      conversationId,
      title: `b${i}`,
      description: 'b',
      createdBy: 'user',
      blockedBy: [first.task.id],
    });
    if (!r.ok) throw new Error(r.error);
    after.push(r.task);
  }
  const task = await store.tasks.claimNext(conversationId);
  if (!task) throw new Error('nothing claimed');
  const run = await store.runs.create(conversationId, task.id);
  return { conversationId, task, run, after };
}

/** A settler as the coordinator has it, and the run's fenced writes; `refusals` collects the fence's refusals. */
async function settlerFor(run: RunRow) {
  const posts = { atomically: (w: Parameters<RunPosts['atomically']>[0]) => store.atomically(w) } as RunPosts;
  return coordinatorSettler(store, run, { posts, clock });
}

describe.skipIf(database.skip)("a run's settlement and the pump on PostgreSQL (issue 40, sixth round)", () => {
  it('settles a completed run in one statement: the run, its task, and the task it blocked released', async () => {
    const { conversationId, task, run, after } = await claimed(1);
    const { settler, writes } = await settlerFor(run);
    const statements = await statementsOf(() =>
      settler.settle(conversationId, run, task, { kind: 'completed', summary: 'done' }, null, writes),
    );
    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatch(/^select errand_settle_run\(/);
    expect(await store.runs.get(run.id)).toMatchObject({ status: 'completed', summary: 'done', endedAt: 1_000 });
    expect(await store.tasks.get(task.id)).toMatchObject({ status: 'completed', resultSummary: 'done' });
    expect(await store.tasks.get(after[0]!.id)).toMatchObject({ status: 'pending', blocked: false });
  });

  it("refuses a stale owner's settlement in that one statement and changes nothing; its next write is refused without asking", async () => {
    const { conversationId, task, run } = await claimed();
    const { settler, writes, refusals } = await settlerFor(run);
    await db.execute(sql`update runs set owner = 'p2', lease_generation = lease_generation + 1 where id = ${run.id}`);
    const statements = await statementsOf(() =>
      expect(
        settler.settle(conversationId, run, task, { kind: 'completed', summary: 'stale' }, null, writes),
      ).rejects.toBeInstanceOf(RunFencedError),
    );
    expect(statements).toHaveLength(1);
    expect(refusals).toHaveLength(1);
    expect(await store.runs.get(run.id)).toMatchObject({ status: 'running', owner: 'p2', summary: null });
    expect(await store.tasks.get(task.id)).toMatchObject({ status: 'in_progress', resultSummary: null });
    const again = await statementsOf(() =>
      expect(writes.settle!({ conversationId, from: ['running'], to: 'completed', task: null })).rejects.toBeInstanceOf(
        RunFencedError,
      ),
    );
    expect(again).toEqual([]);
    expect(refusals).toHaveLength(1);
  });

  it('releases a task added meanwhile that names the settling task as its blocker (what the lock waited for is read after it)', async () => {
    const { conversationId, task, run } = await claimed();
    const { settler, writes } = await settlerFor(run);
    // Another process adds a task blocked by the running one: it holds the conversation's lock while the
    // settlement, its run already ended, waits for that lock.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let added: TaskRow | undefined;
    const adding = store.atomically(async (tx) => {
      const r = await tx.tasks.add({
        conversationId,
        title: 'c',
        description: 'c',
        createdBy: 'agent',
        blockedBy: [task.id],
      });
      if (!r.ok) throw new Error(r.error);
      added = r.task;
      await gate;
    });
    await waitFor(() => added !== undefined, 5_000, 'the task added under the lock');
    expect(added).toMatchObject({ blocked: true });
    const settling = settler.settle(conversationId, run, task, { kind: 'completed', summary: 'done' }, null, writes);
    const waiting = async () =>
      (
        await db.execute(
          sql`select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query like '%errand_settle_run%'`,
        )
      ).rows.length;
    // The settlement's run is ended and it waits for the conversation's lock (polled: a wait, not a timing).
    await waitFor(async () => (await waiting()) === 1, 10_000, 'the settlement waiting for the conversation');
    release();
    await adding;
    await settling;
    expect(await store.tasks.get(task.id)).toMatchObject({ status: 'completed' });
    expect(await store.tasks.get(added!.id)).toMatchObject({ status: 'pending', blocked: false });
  });

  it("asks the pump's three questions in one statement, answering as the reads it replaces", async () => {
    const ready = async (blocked = false) => {
      const { conversationId, task, run } = await claimed();
      const r = await store.tasks.add({
        conversationId,
        title: 'next',
        description: 'next',
        createdBy: 'user',
        ...(blocked ? { blockedBy: [task.id] } : {}),
      });
      if (!r.ok) throw new Error(r.error);
      expect(await store.runs.transition(run.id, ['running'], 'completed')).toBe(true);
      await store.tasks.complete(conversationId, task.id, 'done');
      return conversationId;
    };
    const [a, b, c] = [await ready(), await ready(), await ready()];
    const busy = await claimed();
    await store.tasks.add({ conversationId: busy.conversationId, title: 'x', description: 'x', createdBy: 'user' });
    for (const [limit, exclude, prefer] of [
      [8, new Set<string>(), undefined],
      [8, new Set([a]), c],
      [2, new Set<string>(), c],
      [1, new Set([b]), c],
      [8, new Set([c]), c],
      [8, new Set<string>(), busy.conversationId],
    ] as const) {
      let due: Awaited<ReturnType<NonNullable<typeof store.tasks.dueWork>>> | undefined;
      const statements = await statementsOf(async () => {
        due = await store.tasks.dueWork!(limit, exclude, prefer);
      });
      expect(statements).toHaveLength(1);
      expect(due).toEqual({
        questionsDue: false,
        ready: await store.tasks.findReadyConversations(limit, exclude, prefer),
      });
    }
    expect((await store.tasks.dueWork!(8, new Set(), c)).ready[0]).toBe(c);

    const waiting = await claimed();
    const question: PendingQuestion = {
      id: 'q1',
      question: 'which?',
      options: [],
      toolCallId: 'call-1',
      askedAt: 1_000,
      messageId: null,
      userId: null,
    };
    expect(await store.runs.park(waiting.run.id, question, 60_000)).toBe(true);
    expect((await store.tasks.dueWork!(8, new Set())).questionsDue).toBe(false);
    expect(await store.runs.recordAnswer(waiting.run.id, { text: 'this', userId: 'U1', source: 'typed' })).toBe(true);
    expect((await store.tasks.dueWork!(8, new Set())).questionsDue).toBe(true);
    expect((await store.runs.expiredQuestions(8)).map((r) => r.id)).toEqual([waiting.run.id]);
  });
});
