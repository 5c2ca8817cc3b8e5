import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ErrandStore as Store } from '../../src/composition/errand-store.js';
import type { RunRow, TaskRow } from '../../src/db/schema.js';
import { silentLogger } from '../../src/logger.js';
import { noopMetrics, type RunOutcomeLabel } from '../../src/metrics/metrics.js';
import { createOutbox } from '../../src/outbox/outbox.js';
import type { RunFencedError } from '../../src/run-records/run-fence.js';
import { notices } from '../../src/runs/run-notices.js';
import type { RunEnding } from '../../src/runs/runtime/run-settlement.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { coordinatorSettler } from '../support/coordinator-settler.js';
import type { StoreFactory } from './store-contract.js';

/**
 * How a run's end is recorded, the same on every store (issue 40): SQLite writes it in a transaction of the
 * settler's, PostgreSQL in one call of its `errand_settle_run` function (RunStore.settle). The settler runs here as
 * the coordinator runs it, through the run's fenced writes.
 */
export function settlementContract(name: string, factory: StoreFactory): void {
  describe(`${name}: a run's settlement`, () => {
    let store: Store;
    let close: () => Promise<void>;
    const clock = new FakeClock(1_000);
    const ended: RunOutcomeLabel[] = [];
    const refusals: RunFencedError[] = [];
    const requeued: number[] = [];
    let thread = 0;
    beforeEach(async () => {
      ({ store, close } = await factory());
      ended.length = 0;
      refusals.length = 0;
      requeued.length = 0;
    });
    afterEach(async () => close());

    const outbox = () =>
      createOutbox({
        store,
        clock,
        logger: silentLogger(),
        adapters: new Map(),
        refOf: (id) => store.conversations.refOf(id),
        onQuestionPosted: async () => undefined,
      });
    /** A conversation with a claimed task (and `blockedBy` tasks after it naming it) and its running run. */
    const claimed = async (dependents = 0) => {
      const conversationId = await store.conversations.ensure({
        platform: 'memory',
        workspace: 'W1',
        channel: 'C1',
        thread: `S${++thread}`,
      });
      const add = async (title: string, blockedBy: number[] = []) => {
        const r = await store.tasks.add({ conversationId, title, description: title, createdBy: 'user', blockedBy });
        if (!r.ok) throw new Error(r.error);
        return r.task;
      };
      const first = await add('first');
      const after: TaskRow[] = [];
      for (let i = 0; i < dependents; i++) after.push(await add(`after ${i}`, [first.id]));
      const task = await store.tasks.claimNext(conversationId);
      if (!task) throw new Error('nothing claimed');
      const run = await store.runs.create(conversationId, task.id);
      return { conversationId, task, run, after };
    };
    const settle = async (conversationId: string, run: RunRow, task: TaskRow, ending: RunEnding) => {
      const {
        settler,
        writes,
        refusals: refused,
      } = await coordinatorSettler(store, run, {
        posts: outbox(),
        clock,
        metrics: { ...noopMetrics, runFinished: (outcome) => ended.push(outcome) },
        requeued: (_c, delayMs) => requeued.push(delayMs),
      });
      try {
        await settler.settle(conversationId, run, task, ending, null, writes);
      } finally {
        refusals.push(...refused);
      }
    };
    /** Whether a post (a note: a settlement posts nothing else) waits in the conversation's outbox. */
    const noted = async (conversationId: string) => (await store.outbox.nextPending(conversationId)) !== null;

    it('ends a completed run and its task with its summary, and releases the tasks it blocked', async () => {
      const { conversationId, task, run, after } = await claimed(2);
      expect(after.map((t) => t.blocked)).toEqual([true, true]);
      await settle(conversationId, run, task, { kind: 'completed', summary: 'all done' });
      expect(await store.runs.get(run.id)).toMatchObject({
        status: 'completed',
        summary: 'all done',
        endedAt: expect.any(Number),
      });
      expect(await store.tasks.get(task.id)).toMatchObject({
        status: 'completed',
        resultSummary: 'all done',
        finishedAt: expect.any(Number),
      });
      for (const t of after) expect(await store.tasks.get(t.id)).toMatchObject({ status: 'pending', blocked: false });
      expect(ended).toEqual(['completed']);
      expect(refusals).toEqual([]);
    });

    it('fails a run whose thread is gone and its task with the reason, and keeps the tasks it blocked blocked', async () => {
      const { conversationId, task, run, after } = await claimed(1);
      await settle(conversationId, run, task, { kind: 'target_gone', reason: 'channel_not_found' });
      expect(await store.runs.get(run.id)).toMatchObject({
        status: 'failed',
        error: 'target gone: channel_not_found',
      });
      expect(await store.tasks.get(task.id)).toMatchObject({
        status: 'failed',
        failReason: notices.targetGone('channel_not_found'),
      });
      expect(await store.tasks.get(after[0]!.id)).toMatchObject({ status: 'pending', blocked: true });
      expect(await noted(conversationId), 'nobody can read a note there').toBe(false);
      expect(ended).toEqual(['failed']);
    });

    it('leaves a task the run finished itself as it finished it', async () => {
      const { conversationId, task, run } = await claimed();
      expect((await store.tasks.complete(conversationId, task.id, 'finished by a tool')).ok).toBe(true);
      await settle(conversationId, run, task, { kind: 'completed', summary: 'the answer' });
      expect(await store.runs.get(run.id)).toMatchObject({ status: 'completed', summary: 'the answer' });
      expect(await store.tasks.get(task.id)).toMatchObject({
        status: 'completed',
        resultSummary: 'finished by a tool',
      });
    });

    it('records nothing for a run stopped meanwhile: not counted, its task untouched', async () => {
      const { conversationId, task, run } = await claimed();
      expect(await store.runs.transition(run.id, ['running'], 'cancelled', { error: 'stopped by a user' })).toBe(true);
      await settle(conversationId, run, task, { kind: 'completed', summary: 'too late' });
      expect(await store.runs.get(run.id)).toMatchObject({ status: 'cancelled', summary: null });
      expect(await store.tasks.get(task.id)).toMatchObject({ status: 'in_progress', resultSummary: null });
      expect(ended).toEqual([]);
      expect(refusals).toEqual([]);
    });

    it('records a failure with its note for the thread, and puts a transient failure back to be retried', async () => {
      const limit = await claimed(1);
      await settle(limit.conversationId, limit.run, limit.task, { kind: 'step_limit', steps: 12 });
      expect(await store.runs.get(limit.run.id)).toMatchObject({ status: 'failed', error: 'step limit' });
      expect(await store.tasks.get(limit.task.id)).toMatchObject({ status: 'failed' });
      expect(await store.tasks.get(limit.after[0]!.id)).toMatchObject({ blocked: true });
      expect(await noted(limit.conversationId)).toBe(true);

      const flaky = await claimed();
      await settle(flaky.conversationId, flaky.run, flaky.task, { kind: 'failed', reason: 'timeout', transient: true });
      expect(await store.runs.get(flaky.run.id)).toMatchObject({ status: 'failed', error: 'timeout' });
      expect(await store.tasks.get(flaky.task.id)).toMatchObject({ status: 'pending', notBefore: 6_000 });
      expect(requeued).toEqual([5_000]);
      expect(await noted(flaky.conversationId)).toBe(true);
      expect(ended).toEqual(['failed', 'failed']);
    });
  });
}
