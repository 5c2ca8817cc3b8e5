import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversationKey } from '../../src/chat/conversation-ref.js';
import { closePostgres, openPostgres, type PgDb } from '../../src/db/pg-client.js';
import { createPostgresStore, type PostgresStore } from '../../src/composition/pg-store.js';
import { ConversationBusyError } from '../../src/run-records/conversation-busy-error.js';
import { goalMessage } from '../../src/runs/goal-message.js';
import { claimNextTask } from '../../src/runs/runtime/run-claim.js';
import type { MentionToAccept } from '../../src/tasks/mention-accepts.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { statementLog } from '../support/statement-log.js';
import { useTestDatabase } from '../support/test-database.js';

/*
 * Issue 40, sixth round: a mention's accept and a task's claim on PostgreSQL are one function call each
 * (drizzle-pg/0017_accept_mention.sql), with what the separate statements wrote and the same races.
 */

const database = useTestDatabase();
let db: PgDb;
let other: PgDb;
let store: PostgresStore;
/** A second process on the same database (its own pool and process id). */
let second: PostgresStore;
const log = statementLog();
const { sent } = log;

beforeAll(async () => {
  if (database.skip) return;
  db = await openPostgres(database.url, { poolSize: 3 });
  other = await openPostgres(database.url, { poolSize: 3 });
  log.watch(db.$client);
  const clock = new FakeClock(1_000);
  store = createPostgresStore(db, clock, { ownership: { processId: 'p1', leaseMs: 30_000 } });
  second = createPostgresStore(other, clock, { ownership: { processId: 'p2', leaseMs: 30_000 } });
});
afterAll(async () => {
  if (db) await closePostgres(db);
  if (other) await closePostgres(other);
});

async function statementsOf<T>(work: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
  sent.length = 0;
  const result = await work();
  return { result, statements: [...sent] };
}

let seq = 0;
const thread = () => ({ platform: 'memory', workspace: 'W1', channel: 'C1', thread: `A${++seq}` });
const mention = (ref = thread(), over: Partial<MentionToAccept> = {}): MentionToAccept => ({
  dedupeKey: `msg:${ref.thread}:${++seq}`,
  ref,
  timezone: 'Europe/Paris',
  title: 'do it',
  description: 'do it now',
  requestedBy: 'U1',
  requesterRoles: ['R1', 'R2'],
  sourceMessageId: `m${seq}`,
  claim: true,
  ...over,
});
const accept = (m: MentionToAccept, on: PostgresStore = store) => on.mentions!.accept(m);

describe.skipIf(database.skip)("a mention's accept and a task's claim on PostgreSQL: one call each", () => {
  it('accepts and claims a mention to an idle conversation in one statement, a transaction of its own, writing what the separate calls wrote', async () => {
    const m = mention();
    const { result, statements } = await statementsOf(() => accept(m));
    expect(statements).toEqual([expect.stringMatching(/^select errand_accept_mention\(/)]);
    if (result.kind !== 'task') throw new Error(`accepted as ${result.kind}`);
    const conversationId = conversationKey(m.ref);
    expect(result.active).toBeNull();
    const claimed = result.claimed!;
    expect(claimed.task).toMatchObject({
      id: result.task.id,
      conversationId,
      status: 'in_progress',
      attempts: 1,
      createdBy: 'user',
      requestedBy: 'U1',
      requesterRoles: ['R1', 'R2'],
      blockedBy: [],
      blocked: false,
      startedAt: 1_000,
    });
    expect(claimed.run).toMatchObject({
      conversationId,
      taskId: result.task.id,
      status: 'running',
      principal: 'U1',
      principalRoles: ['R1', 'R2'],
      owner: 'p1',
      leaseUntil: 31_000,
      leaseGeneration: 1,
      steps: 0,
    });
    expect(claimed.fence).toEqual({ runId: claimed.run.id, owner: 'p1', generation: 1 });
    // The rows read back through the store are the ones the call returned.
    expect(await store.runs.get(claimed.run.id)).toEqual(claimed.run);
    expect(await store.tasks.get(result.task.id)).toEqual(claimed.task);
    expect(await store.conversations.get(conversationId)).toMatchObject({
      timezone: 'Europe/Paris',
      thread: m.ref.thread,
    });
    const [goal] = await store.transcript.recent(conversationId, 5);
    expect(goal).toMatchObject({
      runId: claimed.run.id,
      role: 'user',
      content: 'do it now',
      authorId: 'U1',
      platformMessageId: m.sourceMessageId,
      images: null,
    });
  });

  it('does nothing for a redelivered event: no second task, no second run', async () => {
    const m = mention();
    expect((await accept(m)).kind).toBe('task');
    expect(await accept(m)).toEqual({ kind: 'duplicate' });
    expect(await store.tasks.list(conversationKey(m.ref))).toHaveLength(1);
  });

  it('queues the task behind a running run, and claims nothing', async () => {
    const ref = thread();
    const first = await accept(mention(ref));
    if (first.kind !== 'task' || !first.claimed) throw new Error('the first mention was not claimed');
    const queued = await accept(mention(ref, { title: 'next', description: 'next' }));
    if (queued.kind !== 'task') throw new Error(`accepted as ${queued.kind}`);
    expect(queued.claimed).toBeNull();
    expect(queued.active?.id).toBe(first.claimed.run.id);
    expect(queued.task).toMatchObject({ status: 'pending', sequence: 2, attempts: 0 });
  });

  it('writes nothing where a run waits for an answer (the message may be it): the caller decides with its separate calls', async () => {
    const ref = thread();
    const first = await accept(mention(ref));
    if (first.kind !== 'task' || !first.claimed) throw new Error('the first mention was not claimed');
    const question = {
      question: 'which one?',
      options: [],
      toolCallId: 'c1',
      askedAt: 1_000,
      messageId: null,
      userId: 'U1',
    };
    await store.runs.park(first.claimed.run.id, question, 10_000);
    const answer = mention(ref, { title: 'the red one', timezone: 'Asia/Tokyo' });
    expect(await accept(answer)).toEqual({ kind: 'undecided' });
    const conversationId = conversationKey(ref);
    expect(await store.tasks.list(conversationId)).toHaveLength(1);
    expect(await store.conversations.get(conversationId), 'the upsert rolled back too').toMatchObject({
      timezone: 'Europe/Paris',
    });
    // Its de-duplication record rolled back with it: the separate calls record it.
    expect(await store.dedupe.firstSight(answer.dedupeKey!, 1_000)).toBe(true);
  });

  it('claims a ready task in one statement without a transaction, with the goal message of every kind of task', async () => {
    for (const kind of ['user', 'agent', 'schedule'] as const) {
      for (const description of ['same', 'the longer description']) {
        const conversationId = await store.conversations.ensure(thread());
        const added = await store.tasks.add({ conversationId, title: 'same', description, createdBy: kind });
        if (!added.ok) throw new Error(added.error);
        if (kind === 'schedule')
          await db.execute(sql`update tasks set schedule_id = 7, images = '[{"url":"u"}]' where id = ${added.task.id}`);
        const { result, statements } = await statementsOf(() => claimNextTask(store, conversationId));
        expect(statements).toEqual([expect.stringMatching(/^select errand_claim_task\(/)]);
        if (result === null || result === 'busy') throw new Error(`claimed ${String(result)}`);
        const [goal] = await store.transcript.recent(conversationId, 5);
        expect(goal?.content).toBe(goalMessage(result.task));
        expect(goal?.images).toEqual(kind === 'schedule' ? [{ url: 'u' }] : null);
        expect(result.run).toMatchObject({ principal: null, principalRoles: null, owner: 'p1', leaseGeneration: 1 });
      }
    }
  });

  it('claims nothing while a run is active or a task is in progress, and writes no goal on a second attempt', async () => {
    const ref = thread();
    const first = await accept(mention(ref));
    if (first.kind !== 'task' || !first.claimed) throw new Error('the first mention was not claimed');
    await accept(mention(ref, { title: 'second' }));
    const conversationId = conversationKey(ref);
    expect(await claimNextTask(store, conversationId), 'a run is active').toBeNull();
    await store.runs.transition(first.claimed.run.id, ['running'], 'completed');
    expect(await claimNextTask(store, conversationId), 'the first task is still in progress').toBeNull();
    // The first task back in the queue: its second attempt writes no second goal.
    await store.tasks.requeue(first.claimed.task.id, 0);
    const again = await claimNextTask(store, conversationId);
    if (again === null || again === 'busy') throw new Error(`claimed ${String(again)}`);
    expect(again.task).toMatchObject({ id: first.claimed.task.id, attempts: 2 });
    const goals = (await store.transcript.recent(conversationId, 10)).filter((r) => r.role === 'user');
    expect(goals).toHaveLength(1);
  });

  it('reports a busy conversation when a run started there first, and rolls the claim back', async () => {
    const conversationId = await store.conversations.ensure(thread());
    const added = await store.tasks.add({ conversationId, title: 't', description: 't', createdBy: 'user' });
    if (!added.ok) throw new Error(added.error);
    await store.runs.create(conversationId, null);
    // Told the conversation is idle (as the dispatcher is under its lock), the run's insert finds the other one.
    await expect(store.atomically((tx) => tx.claims!.claimNext(conversationId, true))).rejects.toBeInstanceOf(
      ConversationBusyError,
    );
    expect(await store.tasks.get(added.task.id)).toMatchObject({ status: 'pending', attempts: 0 });
  });

  it('starts exactly one run when two processes claim the same conversation at once, many times over', async () => {
    for (let i = 0; i < 10; i++) {
      const conversationId = await store.conversations.ensure(thread());
      for (const t of ['a', 'b'])
        await store.tasks.add({ conversationId, title: t, description: t, createdBy: 'user' });
      const results = await Promise.all([claimNextTask(store, conversationId), claimNextTask(second, conversationId)]);
      const won = results.filter((r) => r !== null && r !== 'busy');
      expect(won, `round ${i}: ${JSON.stringify(results.map((r) => (r && r !== 'busy' ? 'run' : r)))}`).toHaveLength(1);
      const rows = await db.execute(sql`select count(*)::int as n from runs where conversation_id = ${conversationId}`);
      expect(rows.rows[0]).toEqual({ n: 1 });
    }
  });

  it('accepts two mentions of one conversation from two processes at once: both tasks stored, exactly one claimed', async () => {
    for (let i = 0; i < 10; i++) {
      const ref = thread();
      const results = await Promise.all([accept(mention(ref)), accept(mention(ref), second)]);
      const claimed = results.filter((r) => r.kind === 'task' && r.claimed !== null);
      expect(claimed).toHaveLength(1);
      expect(results.filter((r) => r.kind === 'task' && r.active !== null)).toHaveLength(1);
      expect(await store.tasks.list(conversationKey(ref))).toHaveLength(2);
    }
  });
  it("starts exactly one run when a mention's claim and another process's claim of a queued task meet", async () => {
    for (let i = 0; i < 10; i++) {
      const ref = thread();
      const conversationId = await store.conversations.ensure(ref);
      await store.tasks.add({ conversationId, title: 'queued', description: 'queued', createdBy: 'agent' });
      const [accepted, claimed] = await Promise.all([accept(mention(ref)), claimNextTask(second, conversationId)]);
      if (accepted.kind !== 'task') throw new Error(`accepted as ${accepted.kind}`);
      const runs = await db.execute(sql`select owner from runs where conversation_id = ${conversationId}`);
      expect(runs.rows, `round ${i}`).toHaveLength(1);
      const started = [accepted.claimed, claimed].filter((c) => c !== null && c !== 'busy');
      expect(started).toHaveLength(1);
      // Whoever claimed, it took the queue's first task: the one queued before the mention.
      expect(started[0]).toMatchObject({ task: { title: 'queued' } });
    }
  });
});
