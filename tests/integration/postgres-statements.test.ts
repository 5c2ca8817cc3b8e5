import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closePostgres, openPostgres, type PgDb } from '../../src/db/pg-client.js';
import type { RunPosts } from '../../src/agent/agent-types.js';
import { RunFencedError } from '../../src/run-records/run-fence.js';
import { createOutbox } from '../../src/outbox/outbox.js';
import { silentLogger } from '../../src/logger.js';
import { fenceRunWrites } from '../../src/runs/runtime/fenced-run-writes.js';
import { createPostgresStore, type PostgresStore } from '../../src/composition/pg-store.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { MemoryAdapter } from '../fakes/memory-adapter.js';
import { waitFor } from '../fakes/wait-for.js';
import { statementLog } from '../support/statement-log.js';
import { useTestDatabase } from '../support/test-database.js';
import { createBudget } from '../../src/budget/budget.js';
import { runPrivacy } from '../../src/agent/run-privacy.js';
import { writeAnswerStep } from '../../src/runs/agent/answer-write.js';

/*
 * Issue 40: what a mention sends to PostgreSQL. Each statement is a round trip and costs both sides CPU, so
 * these hold the cuts: the statements a store call sends, read off the pooled connections themselves.
 */

const database = useTestDatabase();
let db: PgDb;
let store: PostgresStore;
const log = statementLog();

beforeAll(async () => {
  if (database.skip) return;
  db = await openPostgres(database.url, { poolSize: 2 });
  log.watch(db.$client);
  store = createPostgresStore(db, new FakeClock(1_000), { ownership: { processId: 'p1', leaseMs: 30_000 } });
});
afterAll(async () => {
  if (db) await closePostgres(db);
});

/** The statements `work` sends. */
const statementsOf = (work: () => Promise<unknown>) => log.of(work);

/** The statements among `statements` that lock a conversation's row. */
const conversationLocks = (statements: string[]) =>
  statements.filter((s) => s.includes('from "conversations"') && s.includes('for no key update'));

/** The statements that read a conversation's tasks to recompute their `blocked` flags. */
const blockerReads = (statements: string[]) =>
  statements.filter((s) => s.startsWith('select "id", "status", "blocked_by", "blocked" from "tasks"'));

let seq = 0;
const thread = () => ({ platform: 'memory', workspace: 'W1', channel: 'C1', thread: `S${++seq}` });

/** An outbox on the store, posting to `adapter` (none: it posts nowhere). */
const outboxOf = (adapter?: MemoryAdapter) =>
  createOutbox({
    store,
    clock: new FakeClock(1_000),
    logger: silentLogger(),
    adapters: new Map(adapter ? [['memory', adapter]] : []),
    refOf: (id) => store.conversations.refOf(id),
    onQuestionPosted: async () => undefined,
  });

/**
 * An outbox started on the store and done with what its start kicked: the conversations other tests left rows pending
 * in (a run taken over by `p2`, a row never delivered), whose claims and releases must not fall into a test's count.
 */
async function startedOutbox(adapter: MemoryAdapter) {
  const outbox = outboxOf(adapter);
  await outbox.start();
  await outbox.idle();
  await poolIdle();
  return outbox;
}

/** Waits until every pooled connection is idle and none is asked for: whatever a worker sends later is sent by then. */
async function poolIdle(): Promise<void> {
  const pool = db.$client;
  await waitFor(() => pool.waitingCount === 0 && pool.idleCount === pool.totalCount, 5_000, 'an idle pool');
}

/** The answer 'The answer.' written in one statement through `writes`, finished through `stream`. */
const answerStreamed = (
  writes: ReturnType<typeof fenceRunWrites>,
  conversationId: string,
  runId: string,
  stream: Parameters<typeof writeAnswerStep>[1]['stream'],
) =>
  writeAnswerStep(writes.posts, {
    conversationId,
    runId,
    text: 'The answer.',
    toolCalls: [],
    usage: undefined,
    budget: undefined,
    privacy: runPrivacy('U1', false),
    stream,
  });

/** A run on a new thread and its writes through `posts`, fenced as its owner holds it now; `refusals` collects the fence's. */
async function fencedRun(posts: RunPosts, ref = thread()) {
  const conversationId = await store.conversations.ensure(ref);
  const run = await store.runs.create(conversationId, null);
  const refusals: RunFencedError[] = [];
  const writes = fenceRunWrites(
    await store.runs.fence(run.id),
    { posts, transcript: store.transcript, runs: store.runs },
    (e) => refusals.push(e),
  );
  return { ref, conversationId, run, writes, refusals };
}

/** A started outbox and a run on a new thread whose answer preview is posted as `previewMessage`, with its fenced writes. */
async function streamingRun(previewMessage: string) {
  const adapter = new MemoryAdapter();
  const outbox = await startedOutbox(adapter);
  const { ref, conversationId, run, writes } = await fencedRun(outbox);
  const slot = await writes.posts.recordPreview(conversationId, run.id);
  await slot.posted(previewMessage);
  return { ref, conversationId, adapter, outbox, run, writes };
}

describe.skipIf(database.skip)('statements a mention sends to PostgreSQL (issue 40)', () => {
  it("does not lock a conversation again in the transaction whose upsert already holds its row: a message's task is added and claimed without it", async () => {
    const statements = await statementsOf(() =>
      store.atomically(async (tx) => {
        const conversationId = await tx.conversations.ensure(thread());
        const added = await tx.tasks.add({ conversationId, title: 't', description: 't', createdBy: 'user' });
        if (!added.ok) throw new Error(added.error);
        expect(await tx.tasks.claimNext(conversationId)).toMatchObject({ id: added.task.id });
      }),
    );
    expect(conversationLocks(statements)).toEqual([]);
  });

  it('still locks the conversation when the transaction did not upsert it (a task finished on its own)', async () => {
    const conversationId = await store.conversations.ensure(thread());
    const added = await store.tasks.add({ conversationId, title: 't', description: 't', createdBy: 'user' });
    if (!added.ok) throw new Error(added.error);
    await store.tasks.claimNext(conversationId);
    const statements = await statementsOf(() => store.tasks.complete(conversationId, added.task.id, 'done'));
    expect(conversationLocks(statements)).toHaveLength(1);
    expect(blockerReads(statements), 'no pending task names a blocker: nothing to recompute').toEqual([]);
  });

  it("reads the conversation's blockers after a task finished only when a pending task names one, and unblocks it", async () => {
    const conversationId = await store.conversations.ensure(thread());
    const first = await store.tasks.add({ conversationId, title: 'a', description: 'a', createdBy: 'user' });
    if (!first.ok) throw new Error(first.error);
    const second = await store.tasks.add({
      conversationId,
      title: 'b',
      description: 'b',
      createdBy: 'user',
      blockedBy: [first.task.id],
    });
    if (!second.ok) throw new Error(second.error);
    expect(second.task.blocked).toBe(true);
    await store.tasks.claimNext(conversationId);
    const statements = await statementsOf(() => store.tasks.complete(conversationId, first.task.id, 'done'));
    expect(blockerReads(statements)).toHaveLength(1);
    expect(await store.tasks.get(second.task.id)).toMatchObject({ blocked: false, status: 'pending' });
  });

  it("records a run's usage and its cost in one statement each, without a transaction", async () => {
    const conversationId = await store.conversations.ensure(thread());
    const run = await store.runs.create(conversationId, null);
    const statements = await statementsOf(async () => {
      const usage = { promptTokens: 3, completionTokens: 4 };
      expect(await store.usage.record(run.id, '2026-01-01', 'slack:U1', usage)).toBe(7);
      const charge = { model: 'm', promptTokens: 3, completionTokens: 4, cachedTokens: 0, usd: 0.5 };
      expect(await store.cost.record(run.id, '2026-01-01', 'slack:U1', charge)).toBe(0.5);
    });
    expect(statements).toHaveLength(2);
    expect(await store.usage.userDay('2026-01-01', 'slack:U1')).toEqual({ promptTokens: 3, completionTokens: 4 });
    expect(await store.cost.runUsd(run.id)).toBe(0.5);
  });

  it("checks a run write's fence in the step count it starts with, and only there: no separate check, and a stale owner's count is refused", async () => {
    const posts = { atomically: (w: Parameters<RunPosts['atomically']>[0]) => store.atomically(w) } as RunPosts;
    const { conversationId, run, writes, refusals } = await fencedRun(posts);
    const fenceChecks = (statements: string[]) =>
      statements.filter((s) => s.includes('from "runs"') && s.includes('for no key update'));
    const step = () =>
      writes.posts.atomically(async (tx) => {
        await tx.runs.countStep(run.id);
        await tx.transcript.append({ conversationId, runId: run.id, role: 'assistant', content: 'a step' });
      });

    const stepped = await statementsOf(step);
    expect(fenceChecks(stepped)).toEqual([]);
    expect(stepped.filter((s) => s.startsWith('update "runs" set "steps"'))).toHaveLength(1);
    // A write that starts with another statement sends the check as one of its own.
    const appended = await statementsOf(() =>
      writes.transcript.append({ conversationId, runId: run.id, role: 'assistant', content: 'another' }),
    );
    expect(fenceChecks(appended)).toHaveLength(1);

    await db.execute(sql`update runs set owner = 'p2', lease_generation = lease_generation + 1 where id = ${run.id}`);
    await expect(step()).rejects.toBeInstanceOf(RunFencedError);
    expect(refusals).toHaveLength(1);
    expect(await store.runs.get(run.id)).toMatchObject({ steps: 1, owner: 'p2' });
    const rows = await store.transcript.recent(conversationId, 10);
    expect(
      rows.map((r) => r.content),
      'the refused step left nothing',
    ).toEqual(['a step', 'another']);
  });
  it("records a run's answer preview in one statement that checks its fence, without a transaction; a stale owner's preview is refused and leaves no row", async () => {
    const outbox = outboxOf();
    const { conversationId, run, writes, refusals } = await fencedRun(outbox);
    let slot: Awaited<ReturnType<RunPosts['recordPreview']>> | undefined;
    const statements = await statementsOf(async () => {
      slot = await writes.posts.recordPreview(conversationId, run.id);
    });
    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatch(/^with fence as \(select id from runs .* for no key update\) insert into outbox/);
    expect(slot?.key).not.toBeNull();
    const previews = async () =>
      (await db.execute(sql`select id from outbox where run_id = ${run.id} and status = 'preview'`)).rows;
    expect(await previews()).toHaveLength(1);

    await db.execute(sql`update runs set owner = 'p2', lease_generation = lease_generation + 1 where id = ${run.id}`);
    await expect(writes.posts.recordPreview(conversationId, run.id)).rejects.toBeInstanceOf(RunFencedError);
    expect(refusals).toHaveLength(1);
    expect(await previews(), 'the refused preview left no row').toHaveLength(1);
  });
  it("records a model answer (its step, its charge, its transcript row, its post) in one statement that checks its fence, without a transaction; a stale owner's answer is refused and writes nothing", async () => {
    const outbox = outboxOf();
    const { conversationId, run, writes, refusals } = await fencedRun(outbox);
    const budget = createBudget({
      store: store.usage,
      cost: store.cost,
      limits: {},
      pricing: { m: { inputPerMTok: 1_000_000, outputPerMTok: 2_000_000 } },
      now: () => Date.UTC(2026, 0, 2),
    }).forRun(run.id, { platform: 'slack', userId: `U${seq}` }, 0);
    const answer = (text: string) =>
      writeAnswerStep(writes.posts, {
        conversationId,
        runId: run.id,
        text,
        toolCalls: [],
        usage: { promptTokens: 3, completionTokens: 4, model: 'm' },
        budget,
        privacy: runPrivacy(`U${seq}`, false),
        stream: undefined,
      });

    let written: Awaited<ReturnType<typeof answer>> | undefined;
    const statements = await statementsOf(async () => {
      written = await answer('the answer');
    });
    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatch(
      /^with run as \(update runs set steps = steps \+ 1, .* lease_generation = .*\(insert into outbox/,
    );
    expect(written?.steps).toBe(1);
    expect(written?.ticket).toHaveLength(1);
    expect(budget.spent()).toBe(7);
    expect(budget.spentUsd()).toBe(11);
    expect(await store.runs.get(run.id)).toMatchObject({ steps: 1, tokens: 7 });
    expect(await store.usage.userDay('2026-01-02', `slack:U${seq}`)).toEqual({ promptTokens: 3, completionTokens: 4 });
    expect(await store.cost.runUsd(run.id)).toBe(11);
    const rows = await store.transcript.recent(conversationId, 10);
    expect(rows.map((r) => [r.role, r.content, r.runId])).toEqual([['assistant', 'the answer', run.id]]);
    expect(await store.outbox.state(written!.ticket[0]!)).toMatchObject({ status: 'pending', conversationId });

    const left = async () =>
      (
        await db.execute(
          sql`select (select count(*) from messages where run_id = ${run.id}) as messages, (select count(*) from outbox where run_id = ${run.id}) as posts, (select cost_usd from run_costs where run_id = ${run.id}) as usd`,
        )
      ).rows;
    const before = await left();
    await db.execute(sql`update runs set owner = 'p2', lease_generation = lease_generation + 1 where id = ${run.id}`);
    await expect(answer('a stale answer')).rejects.toBeInstanceOf(RunFencedError);
    expect(refusals).toHaveLength(1);
    expect(await store.runs.get(run.id), 'no step, no tokens counted').toMatchObject({
      steps: 1,
      tokens: 7,
      owner: 'p2',
    });
    expect(await left(), 'no transcript row, no post, no cost').toEqual(before);
    expect(await store.usage.userDay('2026-01-02', `slack:U${seq}`), 'no usage').toEqual({
      promptTokens: 3,
      completionTokens: 4,
    });
    expect(budget.spent(), 'the budget counted nothing of the refused answer').toBe(7);
    // Refused once: later answers are refused without asking the database again.
    expect(await statementsOf(() => answer('again').catch(() => undefined))).toEqual([]);
  });
  it("claims a conversation's posts, reads its first pending row and counts its try in one statement, and waits without reading the row's state: a post of one row sends three", async () => {
    const ref = thread();
    const conversationId = await store.conversations.ensure(ref);
    const adapter = new MemoryAdapter();
    const outbox = await startedOutbox(adapter);
    const [id] = await outbox.record(conversationId, null, { purpose: 'update', text: 'one post' });
    const statements = await statementsOf(async () => {
      expect(await outbox.delivered([id!])).not.toBeNull();
      await outbox.idle();
      // What waits for a pooled connection is sent too (a read of the row's state would be).
      await poolIdle();
    });
    // The wait reads no state: this process's worker, running already, settles the row it posts.
    const posting = statements;
    expect(posting[0]).toMatch(
      /^with prior as \(select .* won as \(insert into outbox_claims .* left join lateral \(select .* from outbox .*counted as \(update outbox set attempts = outbox.attempts \+ 1 /,
    );
    // No attempt count of its own: the claim counted the try. Then the row posted, and the drained claim given up.
    expect(posting.slice(1).map((s) => s.split(' ').slice(0, 4).join(' '))).toEqual([
      'update "outbox" set "status"',
      'delete from "outbox_claims" where',
    ]);
    expect(adapter.textsIn(ref)).toEqual(['one post']);
    const row = await db.execute(sql`select status, attempts from outbox where id = ${id!}`);
    expect(row.rows, 'tried once, counted once').toEqual([{ status: 'posted', attempts: 1 }]);
    await outbox.stop(1_000);
  });
  it("delivers an answer written in one statement by finishing its live preview, as `record` does: nothing posted anew, its row posted with the preview's message", async () => {
    const { ref, conversationId, adapter, outbox, run, writes } = await streamingRun('preview-1');
    const finished: string[] = [];
    const stream = {
      append: () => undefined,
      finish: async (text: string) => {
        finished.push(text);
        return ['preview-1'];
      },
      stop: async () => undefined,
    };
    let ticket: readonly number[] = [];
    const delivering = await statementsOf(async () => {
      ({ ticket } = await answerStreamed(writes, conversationId, run.id, stream));
      expect(await writes.posts.delivered(ticket)).toBe('preview-1');
      await outbox.idle();
      await poolIdle();
    });
    // The preview's message id, which waited for company (pg-deferred-writes.ts) and goes out ahead of the answer's
    // write, on its connection; the answer's write with the claim, its row and its attempt (issue 40, eleventh round:
    // no claim of the poster's own), the stream's stop, then the mark and the drained claim's release in one statement.
    expect(delivering.map((s) => s.split(' ').slice(0, 4).join(' '))).toEqual([
      'update outbox set platform_message_id',
      'with run as (update',
      'with posted as (update',
    ]);
    expect(delivering[1]).toContain('won as (insert into outbox_claims');
    expect(delivering[2]).toContain('released as (delete from outbox_claims');
    const counted = await db.execute(sql`select attempts from outbox where id = ${ticket[0]!}`);
    expect(counted.rows, 'the finish counted as one try').toEqual([{ attempts: 1 }]);
    const claims = await db.execute(sql`select owner from outbox_claims where conversation_id = ${conversationId}`);
    expect(claims.rows, 'the drained claim given up').toEqual([]);
    expect(finished).toEqual(['The answer.']);
    expect(adapter.textsIn(ref), 'not posted anew').toEqual([]);
    expect(await store.outbox.state(ticket[0]!)).toMatchObject({ status: 'posted', platformMessageId: 'preview-1' });
    const previews = await db.execute(
      sql`select status from outbox where run_id = ${run.id} and purpose = 'answer' order by id`,
    );
    expect(
      previews.rows.map((r) => r.status),
      'the preview settled with its answer',
    ).toEqual(['posted', 'posted']);
    await outbox.stop(1_000);
    await poolIdle();
  });

  it("keeps the claim when the streamed answer's mark finds another row pending, and posts that row in the same turn", async () => {
    const { ref, conversationId, adapter, outbox, run, writes } = await streamingRun('preview-2');
    let finishing!: () => void;
    const finishStarted = new Promise<void>((resolve) => (finishing = resolve));
    let letFinish!: () => void;
    const finishMay = new Promise<void>((resolve) => (letFinish = resolve));
    const stream = {
      append: () => undefined,
      finish: async () => {
        finishing();
        await finishMay;
        return ['preview-2'];
      },
      stop: async () => undefined,
    };
    const statements = await statementsOf(async () => {
      const { ticket } = await answerStreamed(writes, conversationId, run.id, stream);
      await finishStarted;
      // Recorded while the answer's stream finishes: pending when the answer's mark looks.
      const [after] = await outbox.record(conversationId, null, { purpose: 'update', text: 'after' });
      letFinish();
      expect(await writes.posts.delivered(ticket)).toBe('preview-2');
      expect(await outbox.delivered([after!])).not.toBeNull();
      await outbox.idle();
      await poolIdle();
    });
    expect(adapter.textsIn(ref)).toEqual(['after']);
    // The mark kept the claim (a row was pending): the same turn reads that row next, counts its try as a row read
    // after the first always is, posts it, then gives the claim up.
    const mark = statements.findIndex((s) => s.startsWith('with posted as (update'));
    expect(mark).toBeGreaterThan(0);
    expect(statements.slice(mark + 1, mark + 5).map((s) => s.split(' ').slice(0, 4).join(' '))).toEqual([
      'select "id", "conversation_id", "run_id",',
      'update "outbox" set "attempts"',
      'update "outbox" set "status"',
      'delete from "outbox_claims" where',
    ]);
    const claims = await db.execute(sql`select owner from outbox_claims where conversation_id = ${conversationId}`);
    expect(claims.rows).toEqual([]);
    await outbox.stop(1_000);
  });
});
