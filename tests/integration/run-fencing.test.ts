import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { createRunLeases } from '../../src/cluster/run-leases.js';
import { loadConfig } from '../../src/config.js';
import { closePostgres, openPostgres, type PgDb } from '../../src/db/pg-client.js';
import { messages, outbox, runs, tasks } from '../../src/db/pg-schema.js';
import { silentLogger } from '../../src/logger.js';
import { createOutbox } from '../../src/outbox/outbox.js';
import { RunFencedError, type RunFence } from '../../src/run-records/run-fence.js';
import { fenceRunWrites } from '../../src/runs/runtime/fenced-run-writes.js';
import { createPostgresStore, type PostgresStore } from '../../src/composition/pg-store.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { startFakeOpenAI } from '../fakes/fake-openai.js';
import { MemoryAdapter } from '../fakes/memory-adapter.js';
import { waitFor } from '../fakes/wait-for.js';
import { capturingLogger } from '../fixtures/mcp/mcp-test-kit.js';
import { useTestDatabase } from '../support/test-database.js';
import { ExternalToolsFixture } from './external-tools-fixture.js';
import { gate } from './harness.js';

/*
 * Issue 22 item 7: every write of an executing run is conditional on the owner and lease generation its
 * claim wrote (run-records/run-fence.ts). Two stores on two pools play two processes on one database; "process b"
 * takes a run over from "process a" the way the cluster runtime does (run-leases.ts).
 */

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
const storeOf = (pool: PgDb, processId: string, clock: FakeClock) =>
  createPostgresStore(pool, clock, { ownership: { processId, leaseMs: LEASE_MS } });
const outboxOf = (store: PostgresStore, clock: FakeClock, adapter = new MemoryAdapter('W1')) =>
  createOutbox({
    store,
    clock,
    logger: silentLogger(),
    adapters: new Map([['memory', adapter]]),
    refOf: () => adapter.thread('C1', `T${seq}`),
    onQuestionPosted: async () => undefined,
  });

/** A conversation with a task claimed by `store`'s process and its run, as the coordinator claims them. */
async function claimed(store: PostgresStore): Promise<{ conversationId: string; fence: RunFence }> {
  const conversationId = await store.conversations.ensure({
    platform: 'memory',
    workspace: 'W1',
    channel: 'C1',
    thread: `T${++seq}`,
  });
  const added = await store.tasks.add({
    conversationId,
    title: 'Look it up',
    description: 'Look it up',
    createdBy: 'user',
    requestedBy: 'U1',
  });
  if (!added.ok) throw new Error(added.error);
  const fence = await store.atomically(async (tx) => {
    await tx.tasks.claimNext(conversationId);
    const run = await tx.runs.create(conversationId, added.task.id);
    return tx.runs.fence(run.id);
  });
  return { conversationId, fence };
}

/** Takes the run over for `owner` once its lease has run out, as another process's cluster runtime would. */
async function takeOver(clock: FakeClock, pool: PgDb, runId: string, owner: string): Promise<void> {
  clock.advance(LEASE_MS + 1);
  const leases = createRunLeases(pool, clock);
  const expired = (await leases.expired(clock.now())).find((r) => r.id === runId);
  expect(expired, 'the run is expired').toBeDefined();
  expect(await leases.takeOver(runId, owner, expired!.leaseUntil, LEASE_MS)).toBe(true);
}

const outboxRowsOf = (runId: string) =>
  pools[2]!.select({ purpose: outbox.purpose, payload: outbox.payload }).from(outbox).where(eq(outbox.runId, runId));
const assistantRowsOf = (runId: string) =>
  pools[2]!
    .select({ content: messages.content })
    .from(messages)
    .where(sql`${messages.runId} = ${runId} and ${messages.role} = 'assistant'`);
const runRow = async (runId: string) => (await pools[2]!.select().from(runs).where(eq(runs.id, runId)))[0]!;

describe.skipIf(database.skip)('fencing the writes of a run by owner and lease generation', () => {
  it('refuses the writes of an owner whose run was taken over: no step, no count, and never its outbox row', async () => {
    const clock = new FakeClock();
    const a = storeOf(pools[0]!, 'proc-a', clock);
    const { conversationId, fence } = await claimed(a);
    expect(fence).toMatchObject({ owner: 'proc-a', generation: 1 });
    const refusals: RunFencedError[] = [];
    const writes = fenceRunWrites(fence, { posts: outboxOf(a, clock), transcript: a.transcript, runs: a.runs }, (err) =>
      refusals.push(err),
    );
    const step = (text: string) =>
      writes.posts.atomically(async (tx) => {
        await tx.runs.countStep(fence.runId);
        await tx.transcript.append({
          conversationId,
          runId: fence.runId,
          role: 'assistant',
          content: text,
          toolCalls: [],
        });
        return writes.posts.record(conversationId, fence.runId, { purpose: 'answer', text }, tx);
      });

    expect(await step('While it was mine.')).toHaveLength(1);
    await takeOver(clock, pools[1]!, fence.runId, 'proc-b');

    await expect(step('The stale answer.')).rejects.toBeInstanceOf(RunFencedError);
    await expect(
      writes.transcript.append({
        conversationId,
        runId: fence.runId,
        role: 'tool',
        content: '{}',
        toolCallId: 'call-1',
      }),
    ).rejects.toBeInstanceOf(RunFencedError);
    await expect(
      writes.posts.record(conversationId, fence.runId, { purpose: 'update', text: 'Still going.' }),
    ).rejects.toBeInstanceOf(RunFencedError);
    await expect(
      writes.runs.transition(fence.runId, ['running'], 'completed', { summary: 'Done.' }),
    ).rejects.toBeInstanceOf(RunFencedError);
    expect(refusals, 'the run is told once').toHaveLength(1);

    expect((await outboxRowsOf(fence.runId)).map((r) => r.payload.text)).toEqual(['While it was mine.']);
    expect((await assistantRowsOf(fence.runId)).map((r) => r.content)).toEqual(['While it was mine.']);
    expect(await runRow(fence.runId)).toMatchObject({
      status: 'running',
      owner: 'proc-b',
      leaseGeneration: 2,
      steps: 1,
    });
  });

  it('makes a takeover wait for a write under way, so the check and the write commit together', async () => {
    const clock = new FakeClock();
    const a = storeOf(pools[0]!, 'proc-a', clock);
    const { conversationId, fence } = await claimed(a);
    const writes = fenceRunWrites(
      fence,
      { posts: outboxOf(a, clock), transcript: a.transcript, runs: a.runs },
      () => undefined,
    );
    clock.advance(LEASE_MS + 1);
    const leases = createRunLeases(pools[1]!, clock);
    const expired = (await leases.expired(clock.now())).find((r) => r.id === fence.runId)!;
    let takeover: Promise<boolean> | null = null;
    await writes.posts.atomically(async (tx) => {
      // The write's first statement (a step's count) checked the fence and holds the run's row: the takeover
      // starts now and must wait for this commit. (The check's answer is awaited before the commit: a write
      // whose first statement is another goes out with the check right behind it.)
      await tx.runs.countStep(fence.runId);
      takeover = leases.takeOver(fence.runId, 'proc-b', expired.leaseUntil, LEASE_MS);
      await waitFor(
        async () =>
          (
            await pools[2]!.execute(
              sql`select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query like 'update "runs"%'`,
            )
          ).rows.length === 1,
        10_000,
        'the takeover to wait for the row',
      );
      await tx.transcript.append({
        conversationId,
        runId: fence.runId,
        role: 'assistant',
        content: 'Recorded in time.',
        toolCalls: [],
      });
      return writes.posts.record(conversationId, fence.runId, { purpose: 'answer', text: 'Recorded in time.' }, tx);
    });
    expect(await takeover!).toBe(true);
    expect((await outboxRowsOf(fence.runId)).map((r) => r.payload.text)).toEqual(['Recorded in time.']);
    await expect(
      writes.transcript.append({
        conversationId,
        runId: fence.runId,
        role: 'assistant',
        content: 'Too late.',
        toolCalls: [],
      }),
    ).rejects.toBeInstanceOf(RunFencedError);
  });

  it('gives every new claim of a run a new generation: a resume by the same process, a takeover; adopting a run already ours keeps it', async () => {
    const clock = new FakeClock();
    const a = storeOf(pools[0]!, 'proc-a', clock);
    const { fence } = await claimed(a);
    const leases = createRunLeases(pools[0]!, clock);
    expect(await leases.adopt(fence.runId, 'proc-a', LEASE_MS)).toBe(true);
    expect(await a.atomically((tx) => tx.runs.holds(fence))).toBe(true);

    expect(
      await a.runs.park(
        fence.runId,
        { question: 'Which?', options: [], toolCallId: 'call-1', askedAt: 0, messageId: null, userId: 'U1' },
        clock.now() + 60_000,
      ),
    ).toBe(true);
    const resumed = await a.atomically(async (tx) =>
      (await tx.runs.unpark(fence.runId)) ? tx.runs.fence(fence.runId) : null,
    );
    expect(resumed).toMatchObject({ owner: 'proc-a', generation: 2 });
    expect(await a.atomically((tx) => tx.runs.holds(fence)), 'the execution before the question').toBe(false);
    expect(await a.atomically((tx) => tx.runs.holds(resumed!))).toBe(true);

    await takeOver(clock, pools[1]!, fence.runId, 'proc-b');
    expect(await a.atomically((tx) => tx.runs.holds(resumed!))).toBe(false);
    const b = storeOf(pools[1]!, 'proc-b', clock);
    expect(await b.runs.fence(fence.runId)).toMatchObject({ owner: 'proc-b', generation: 3 });
  });

  it('stops an executing run at its first refused write: nothing recorded, posted or settled, no tool and no model called again', async () => {
    const clock = new FakeClock();
    const dir = mkdtempSync(join(tmpdir(), 'errand-fencing-'));
    const model = await startFakeOpenAI();
    const logs = capturingLogger();
    const tools = new ExternalToolsFixture();
    const adapter = new MemoryAdapter('W1');
    const store = storeOf(pools[0]!, 'proc-a', clock);
    const config = loadConfig({
      OPENAI_BASE_URL: model.baseUrl,
      OPENAI_API_KEY: 'test-key',
      DATABASE_PATH: join(dir, 'unused.db'),
    });
    // One process's app with no lease renewals (the local cluster): only the fence can tell it the run is gone.
    const app = await createApp({
      config,
      adapters: [adapter],
      clock,
      store,
      logger: logs.logger,
      externalTools: tools.source,
      modelBackoffMs: () => 5,
      taskRetryDelayMs: () => 60_000,
    });
    try {
      await app.start();
      const held = gate();
      model.reply(
        {
          text: 'The stale answer.',
          toolCalls: [{ name: 'tracker__search', arguments: { title: 'stale' } }],
          gate: held.promise,
        },
        { text: 'A second step.' },
      );
      const thread = adapter.thread('C1', 'T-app');
      await adapter.say(thread, 'Look it up');
      await waitFor(() => model.requests.length === 1, 10_000, 'the model call');
      const conversationId = await store.conversations.ensure(thread);
      const run = (await store.runs.active(conversationId))!;

      // Process a stalls on the model past its lease; process b takes the run over meanwhile.
      await takeOver(clock, pools[1]!, run.id, 'proc-b');
      held.open();
      await waitFor(
        () => logs.lines.some((l) => l.msg === 'stopped working on a run owned elsewhere now'),
        10_000,
        'the run to stop',
      );
      await app.coordinator.idle();

      expect(logs.lines.filter((l) => l.msg.startsWith('a write of this run was refused'))).toHaveLength(1);
      expect(tools.calls, 'no tool call').toEqual([]);
      expect(model.requests, 'no further model call').toHaveLength(1);
      expect(await outboxRowsOf(run.id), 'nothing to post').toEqual([]);
      expect(await assistantRowsOf(run.id), 'no step recorded').toEqual([]);
      expect(await runRow(run.id), 'not settled here: the run is proc-b’s').toMatchObject({
        status: 'running',
        owner: 'proc-b',
        steps: 0,
      });
      expect(
        (await pools[2]!.select({ status: tasks.status }).from(tasks).where(eq(tasks.id, run.taskId!)))[0]?.status,
      ).toBe('in_progress');
      expect(adapter.textsIn(thread)).toEqual([]);
    } finally {
      await app.stop();
      await model.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses a stale owner's tool calls after its step was recorded: no to-do, memory, schedule or MCP call for a run it lost", async () => {
    const clock = new FakeClock();
    const dir = mkdtempSync(join(tmpdir(), 'errand-fencing-'));
    const model = await startFakeOpenAI();
    const logs = capturingLogger();
    const tools = new ExternalToolsFixture();
    const adapter = new MemoryAdapter('W1');
    const store = storeOf(pools[0]!, 'proc-a', clock);
    const config = loadConfig({
      OPENAI_BASE_URL: model.baseUrl,
      OPENAI_API_KEY: 'test-key',
      DATABASE_PATH: join(dir, 'unused.db'),
    });
    const app = await createApp({
      config,
      adapters: [adapter],
      clock,
      store,
      logger: logs.logger,
      externalTools: tools.source,
      modelBackoffMs: () => 5,
      taskRetryDelayMs: () => 60_000,
    });
    try {
      await app.start();
      model.reply({
        text: 'On it.',
        toolCalls: [
          { name: 'add_task', arguments: { title: 'a stale to-do' } },
          { name: 'remember', arguments: { text: 'a stale memory', scope: 'channel' } },
          { name: 'schedule_prompt', arguments: { prompt: 'a stale schedule', kind: 'interval', spec: '60' } },
          { name: 'tracker__search', arguments: { title: 'stale' } },
        ],
      });
      // The step is recorded; the process stalls while its answer is posted, and loses the run meanwhile.
      const posting = gate();
      adapter.postGate = posting.promise;
      const thread = adapter.thread('C1', 'T-tools');
      await adapter.say(thread, 'Plan it all');
      const conversationId = await store.conversations.ensure(thread);
      await waitFor(
        async () => (await assistantRowsOf((await store.runs.active(conversationId))?.id ?? '')).length === 1,
        10_000,
        'the step recorded',
      );
      const run = (await store.runs.active(conversationId))!;
      await takeOver(clock, pools[1]!, run.id, 'proc-b');
      posting.open();
      await waitFor(
        () => logs.lines.some((l) => l.msg === 'stopped working on a run owned elsewhere now'),
        10_000,
        'the run to stop',
      );
      await app.coordinator.idle();

      expect(tools.calls, 'no MCP call').toEqual([]);
      expect(
        (await store.tasks.list(conversationId)).map((t) => t.title),
        'no new to-do',
      ).toEqual(['Plan it all']);
      expect(
        await store.memory.newest({ person: 'memory:U1', channel: 'memory:W1:C1', workspace: 'memory:W1' }, 10),
        'no memory',
      ).toEqual([]);
      expect(await app.schedules.list({ platform: 'memory', workspace: 'W1', channel: 'C1' }), 'no schedule').toEqual(
        [],
      );
      expect(model.requests, 'no further model call').toHaveLength(1);
    } finally {
      await app.stop();
      await model.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
