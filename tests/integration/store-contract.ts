import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { silentLogger } from '../../src/logger.js';
import { createOutbox } from '../../src/outbox/outbox.js';
import { ConversationBusyError } from '../../src/run-records/conversation-busy-error.js';
import type { ErrandStore as Store } from '../../src/composition/errand-store.js';
import type { NewTask } from '../../src/tasks/task-service.js';
import { MemoryAdapter } from '../fakes/memory-adapter.js';
import { waitFor } from '../fakes/wait-for.js';
import type { RunPosts } from '../../src/agent/agent-types.js';
import { runPrivacy } from '../../src/agent/run-privacy.js';
import { createBudget } from '../../src/budget/budget.js';
import { writeAnswerStep } from '../../src/runs/agent/answer-write.js';
import { fenceRunWrites } from '../../src/runs/runtime/fenced-run-writes.js';

/**
 * Makes a fresh, empty, migrated store for one test, and disposes of it afterwards. `peer` is a second
 * store on the same database as another process would open it (its own connections); an embedded
 * database that only one process may open hands back the same store.
 */
export type StoreFactory = () => Promise<{ store: Store; peer: Store; close(): Promise<void> }>;

const channel = { platform: 'memory', workspace: 'W1', channel: 'C1' };
/** A channel schedule every 10 minutes whose next fire is due a minute after the epoch. */
const dueInAMinute = (prompt: string) => ({
  ...channel,
  target: 'channel' as const,
  conversationId: null,
  prompt,
  kind: 'interval' as const,
  spec: '10',
  timezone: 'UTC',
  status: 'active' as const,
  anchorAt: 0,
  nextRunAt: 60_000,
  createdBy: 'U1',
  createdAt: 0,
});
const ref = (thread: string) => ({ ...channel, thread });

/**
 * What the core relies on from any Store, whatever the database under it. Each implementation's test
 * calls this with its own factory; nothing here assumes SQLite.
 */
export function storeContract(name: string, factory: StoreFactory): void {
  describe(`${name}: the Store contract`, () => {
    let store: Store;
    let peer: Store;
    let close: () => Promise<void>;
    beforeEach(async () => {
      ({ store, peer, close } = await factory());
    });
    /** `n` calls alternating between the two stores, all started at once. */
    const race = <T>(n: number, call: (s: Store) => Promise<T>) =>
      Promise.allSettled(Array.from({ length: n }, (_, i) => call(i % 2 === 0 ? store : peer)));
    const values = <T>(results: PromiseSettledResult<T>[]) =>
      results.filter((r): r is PromiseFulfilledResult<T> => r.status === 'fulfilled').map((r) => r.value);
    afterEach(async () => close());

    const conversation = (thread: string) => store.conversations.ensure(ref(thread));
    const task = async (
      conversationId: string,
      title: string,
      extra: Partial<Pick<NewTask, 'blockedBy' | 'requestedBy' | 'requesterRoles' | 'fromSchedule'>> = {},
    ) => {
      const r = await store.tasks.add({ conversationId, title, description: title, createdBy: 'user', ...extra });
      if (!r.ok) throw new Error(r.error);
      return r.task;
    };

    it('keeps at most one active run per conversation', async () => {
      const c = await conversation('T1');
      const first = await store.runs.create(c, null);
      await expect(store.runs.create(c, null)).rejects.toBeInstanceOf(ConversationBusyError);
      expect((await store.runs.active(c))?.id).toBe(first.id);
      expect(await store.runs.transition(first.id, ['running'], 'completed')).toBe(true);
      expect(await store.runs.transition(first.id, ['running'], 'failed')).toBe(false);
      expect(await store.runs.active(c)).toBeNull();
      expect((await store.runs.create(c, null)).status).toBe('running');
    });

    it('keeps the principal with the task and the run: who asked, their roles, and whether it descends from a schedule', async () => {
      const c = await conversation('T1');
      const t = await task(c, 'a', { requestedBy: 'U0ALICE01', requesterRoles: ['R1', 'R2'], fromSchedule: true });
      expect(t).toMatchObject({ requestedBy: 'U0ALICE01', requesterRoles: ['R1', 'R2'], fromSchedule: true });
      const plain = await task(c, 'b', { requestedBy: 'U0BOB0001' });
      expect(plain).toMatchObject({ requesterRoles: null, fromSchedule: false });
      const run = await store.runs.create(c, t.id, { userId: 'U0ALICE01', roles: ['R1', 'R2'] });
      expect(run).toMatchObject({ principal: 'U0ALICE01', principalRoles: ['R1', 'R2'] });
      expect(await store.runs.get(run.id)).toMatchObject({ principal: 'U0ALICE01', principalRoles: ['R1', 'R2'] });
      expect(await store.runs.active(c)).toMatchObject({ principal: 'U0ALICE01' });
      expect(await store.tasks.get(t.id)).toMatchObject({ requesterRoles: ['R1', 'R2'], fromSchedule: true });
    });

    it('hands out tasks in order, one at a time, skipping blocked and held ones', async () => {
      const c = await conversation('T1');
      const a = await task(c, 'a');
      const b = await task(c, 'b', { blockedBy: [a.id] });
      const d = await task(c, 'd');
      await store.attachments.hold(d.id, Number.MAX_SAFE_INTEGER);
      expect((await store.tasks.claimNext(c))?.id).toBe(a.id);
      expect(await store.tasks.claimNext(c)).toBeNull();
      await store.tasks.complete(c, a.id, 'done');
      expect((await store.tasks.claimNext(c))?.id).toBe(b.id);
      await store.tasks.complete(c, b.id, 'done');
      expect(await store.tasks.claimNext(c)).toBeNull();
      expect(await store.attachments.fill(d.id, 'with files', [])).toBe(true);
      expect((await store.tasks.claimNext(c))?.id).toBe(d.id);
      expect(await store.attachments.fill(d.id, 'too late', [])).toBe(false);
    });

    it('finds conversations with a ready task and no active run', async () => {
      const idle = await conversation('idle');
      const busy = await conversation('busy');
      await task(idle, 'x');
      await task(busy, 'y');
      await store.runs.create(busy, null);
      expect(await store.tasks.findReadyConversations(10, new Set())).toEqual([idle]);
      expect(await store.tasks.findReadyConversations(10, new Set([idle]))).toEqual([]);
    });

    it('puts a preferred conversation first when it is ready, wherever the cut falls, and leaves it out when it is not', async () => {
      const ids = [];
      for (const name of ['p1', 'p2', 'p3']) {
        const c = await conversation(name);
        await task(c, 'x');
        ids.push(c);
      }
      const [, , last] = ids as [string, string, string];
      const done = await conversation('done');
      const busy = await conversation('busy2');
      await task(busy, 'y');
      await store.runs.create(busy, null);
      const all = await store.tasks.findReadyConversations(10, new Set());
      expect([...all].sort()).toEqual([...ids].sort());
      const preferred = all.at(-1)!;
      expect(await store.tasks.findReadyConversations(1, new Set(), preferred)).toEqual([preferred]);
      const two = await store.tasks.findReadyConversations(2, new Set(), preferred);
      expect(two).toHaveLength(2);
      expect(two[0]).toBe(preferred);
      expect(new Set(two).size).toBe(2);
      expect(await store.tasks.findReadyConversations(10, new Set(), done)).toEqual(all);
      expect(await store.tasks.findReadyConversations(10, new Set(), busy)).toEqual(all);
      expect(await store.tasks.findReadyConversations(10, new Set([last]), last)).toEqual(
        all.filter((c) => c !== last),
      );
    });

    it('de-duplicates: only the first sight of a key counts', async () => {
      expect(await store.dedupe.firstSight('msg:1', 1000)).toBe(true);
      expect(await store.dedupe.firstSight('msg:1', 2000)).toBe(false);
      expect(await store.dedupe.prune(1500)).toBe(1);
      expect(await store.dedupe.firstSight('msg:1', 3000)).toBe(true);
    });

    it('claims a schedule fire once, and only with the due time it was armed for', async () => {
      const row = await store.schedules.insert(dueInAMinute('p'));
      expect(await store.schedules.recordFire(row.id, 59_000, 60_000)).toBeNull();
      const fired = await store.schedules.recordFire(row.id, 60_000, 60_500);
      expect(fired).toMatchObject({ runCount: 1, lastRunAt: 60_500, nextRunAt: null });
      expect(await store.schedules.recordFire(row.id, 60_000, 60_600)).toBeNull();
    });

    it('keeps outbox rows in order until posted; a stop drops the run’s unsent answers only', async () => {
      const c = await conversation('T1');
      const run = await store.runs.create(c, null);
      const [a, b] = await store.outbox.add(c, run.id, 'answer', [{ text: 'one' }, { text: 'two' }]);
      const [q] = await store.outbox.add(c, run.id, 'question', [{ text: 'which?' }]);
      expect((await store.outbox.nextPending(c))?.id).toBe(a);
      expect(await store.outbox.markPosted(a!, 'P1')).toBe(true);
      expect(await store.outbox.markPosted(a!, 'P1')).toBe(false);
      expect((await store.outbox.nextPending(c))?.payload).toEqual({ text: 'two' });
      expect(await store.outbox.dropUnsent(run.id)).toEqual([b]);
      expect((await store.outbox.nextPending(c))?.id).toBe(q);
      expect(await store.outbox.state(a!)).toMatchObject({ status: 'posted', platformMessageId: 'P1' });
      expect(await store.outbox.pendingConversations()).toEqual([c]);
    });

    it('keeps the bytes of a files row beside it, committed with it, until it is settled; the staged ids for a try after a crash', async () => {
      const c = await conversation('T1');
      const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0, 255, 7]);
      const files = [
        { name: 'chart.png', bytes: png, mimeType: 'image/png' },
        { name: 'data.csv', bytes: new TextEncoder().encode('a,b\n'), mimeType: 'text/csv' },
      ];
      await expect(
        store.atomically(async (tx) => {
          const [id] = await tx.outbox.add(c, null, 'files', [{ text: '' }]);
          await tx.outboxFiles.add(id!, files);
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      expect(await store.outbox.nextPending(c)).toBeNull();
      const id = await store.atomically(async (tx) => {
        const [row] = await tx.outbox.add(c, null, 'files', [{ text: '' }]);
        await tx.outboxFiles.add(row!, files);
        return row!;
      });
      expect(await store.outbox.nextPending(c)).toMatchObject({ id, purpose: 'files' });
      const read = await peer.outboxFiles.filesOf(id);
      expect(read.map((f) => [f.name, f.mimeType, Buffer.from(f.bytes).toString('hex'), f.stagedId])).toEqual([
        ['chart.png', 'image/png', Buffer.from(png).toString('hex'), null],
        ['data.csv', 'text/csv', Buffer.from('a,b\n').toString('hex'), null],
      ]);
      await peer.outboxFiles.setStaged(id, ['F1', 'F2']);
      expect((await store.outboxFiles.filesOf(id)).map((f) => f.stagedId)).toEqual(['F1', 'F2']);
      expect(await store.outboxFiles.releaseSettled()).toBe(0);
      await store.outbox.markPosted(id, 'F1');
      expect(await peer.outboxFiles.releaseSettled()).toBe(2);
      expect(await store.outboxFiles.filesOf(id)).toEqual([]);
      const [other] = await store.outbox.add(c, null, 'files', [{ text: '' }]);
      await store.outboxFiles.add(other!, files.slice(0, 1));
      await store.outboxFiles.release(other!);
      expect(await store.outboxFiles.filesOf(other!)).toEqual([]);
    });

    it('gives a conversation’s outbox claim to exactly one of two racing stores, and frees it on release', async () => {
      const c = await conversation('T1');
      const attempts = values(await race(2, (s) => s.outbox.claim(c)));
      const won = attempts.filter((a) => a.kind === 'claimed');
      expect(won).toHaveLength(1);
      expect(attempts.filter((a) => a.kind === 'busy')).toHaveLength(1);
      const claim = won[0]!.kind === 'claimed' ? won[0]!.claim : null;
      expect(await claim!.renew()).toBe(true);
      await claim!.release();
      expect(await claim!.renew()).toBe(false);
      const again = await peer.outbox.claim(c);
      expect(again.kind).toBe('claimed');
      if (again.kind === 'claimed') await again.claim.release();
    });

    it('posts each outbox row exactly once when two stores’ posters are kicked for the same conversation', async () => {
      const c = await conversation('T1');
      const adapter = new MemoryAdapter();
      const outboxOf = (s: Store) =>
        createOutbox({
          store: s,
          clock: systemClock,
          logger: silentLogger(),
          adapters: new Map([['memory', adapter]]),
          refOf: () => ref('T1'),
          onQuestionPosted: async () => undefined,
        });
      // Where only one process may open the database (SQLite: `peer` is `store`), one process has one poster,
      // which then records and posts everything; where processes share it, each has its own.
      const one = outboxOf(store);
      const two = peer === store ? one : outboxOf(peer);
      // Slow posts keep the first claim held while the second poster tries its own.
      let open!: () => void;
      adapter.postGate = new Promise<void>((resolve) => (open = resolve));
      await Promise.all([...new Set([one, two])].map((o) => o.start()));
      try {
        const tickets = [
          await one.record(c, null, { purpose: 'note', text: 'first' }),
          await two.record(c, null, { purpose: 'note', text: 'second' }),
        ];
        await two.record(c, null, { purpose: 'note', text: 'third' });
        open();
        const delivered = await Promise.all([one.delivered(tickets[0]!), two.delivered(tickets[1]!)]);
        expect(delivered.every((id) => id !== null)).toBe(true);
        await waitFor(async () => (await store.outbox.pendingConversations()).length === 0, 20_000, 'every row posted');
        expect(adapter.posts.map((p) => p.text)).toEqual(['first', 'second', 'third']);
      } finally {
        open();
        await Promise.all([...new Set([one, two])].map((o) => o.stop(1000)));
      }
    });

    it('adds usage up per person and day, and returns the run’s running total', async () => {
      const c = await conversation('T1');
      const run = await store.runs.create(c, null);
      expect(
        await store.usage.record(run.id, '2026-01-05', 'slack:U1', { promptTokens: 100, completionTokens: 20 }),
      ).toBe(120);
      expect(
        await store.usage.record(run.id, '2026-01-05', 'slack:U1', { promptTokens: 10, completionTokens: 2 }),
      ).toBe(132);
      await store.usage.record(run.id, '2026-01-06', 'slack:U2', { promptTokens: 1, completionTokens: 1 });
      expect(await store.usage.userDay('2026-01-05', 'slack:U1')).toEqual({ promptTokens: 110, completionTokens: 22 });
      expect(await store.usage.teamSince('2026-01-01')).toEqual({ promptTokens: 111, completionTokens: 23 });
      expect(await store.usage.userDay('2026-01-07', 'slack:U1')).toEqual({ promptTokens: 0, completionTokens: 0 });
      expect((await store.usage.topUsersSince('2026-01-01', 5)).map((u) => u.user)).toEqual(['slack:U1', 'slack:U2']);
    });

    it('adds usage up per person, day and model with cached tokens and dollars, and returns the run’s running cost', async () => {
      const run = await store.runs.create(await conversation('T1'), null);
      const charge = (model: string, usd: number) => ({
        model,
        promptTokens: 100,
        completionTokens: 20,
        cachedTokens: 40,
        usd,
      });
      expect(await store.cost.record(run.id, '2026-01-05', 'slack:U1', charge('gpt-4o-mini', 0.25))).toBeCloseTo(
        0.25,
        10,
      );
      expect(await store.cost.record(run.id, '2026-01-05', 'slack:U1', charge('gpt-4o', 1.5))).toBeCloseTo(1.75, 10);
      await store.cost.record(run.id, '2026-01-05', 'slack:U1', charge('gpt-4o-mini', 0.25));
      await store.cost.record(run.id, '2026-01-06', 'slack:U2', charge('gpt-4o-mini', 0.5));
      expect(await store.cost.runUsd(run.id)).toBeCloseTo(2.5, 10);
      expect(await store.cost.runUsd('no-such-run')).toBe(0);
      expect(await store.cost.userDayUsd('2026-01-05', 'slack:U1')).toBeCloseTo(2, 10);
      expect(await store.cost.teamDayUsd('2026-01-06')).toBeCloseTo(0.5, 10);
      expect(await store.cost.teamDayUsd('2026-01-07')).toBe(0);
      expect(await store.cost.userUsdSince('slack:U1', '2026-01-01')).toBeCloseTo(2, 10);
      const models = await store.cost.modelsSince('2026-01-01', null);
      expect(models.map((m) => m.model)).toEqual(['gpt-4o', 'gpt-4o-mini']);
      expect(models[1]).toMatchObject({ promptTokens: 300, completionTokens: 60, cachedTokens: 120 });
      expect(models[1]!.usd).toBeCloseTo(1, 10);
      expect((await store.cost.modelsSince('2026-01-06', 'slack:U2')).map((m) => m.model)).toEqual(['gpt-4o-mini']);
      // A model without a price adds its tokens, and nothing to the run's cost.
      expect(await store.cost.record(run.id, '2026-01-08', 'slack:U1', charge('unpriced', 0))).toBeCloseTo(2.5, 10);
      expect(await store.cost.modelsSince('2026-01-08', 'slack:U1')).toMatchObject([
        { model: 'unpriced', promptTokens: 100, usd: 0 },
      ]);
    });

    it('keeps the first trace a run was recorded under', async () => {
      expect(await store.traces.traceOf('run-x')).toBeNull();
      await store.traces.recordTrace('run-x', '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
      await store.traces.recordTrace('run-x', '00-11111111111111111111111111111111-2222222222222222-01');
      expect(await store.traces.traceOf('run-x')).toBe('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
    });

    it('keeps a deployment key once: racing stores each offering their own all get the first one stored', async () => {
      const keys = values(await race(6, (s) => s.traces.deploymentKey('principal-pseudonym', `key-${Math.random()}`)));
      expect(keys).toHaveLength(6);
      expect(new Set(keys).size).toBe(1);
      expect(await peer.traces.deploymentKey('principal-pseudonym', 'another')).toBe(keys[0]);
      expect(await store.traces.deploymentKey('another-purpose', 'its own')).toBe('its own');
    });

    it('returns the transcript oldest first, the newest `limit` rows', async () => {
      const c = await conversation('T1');
      for (const content of ['one', 'two', 'three'])
        await store.transcript.append({ conversationId: c, runId: null, role: 'user', content });
      expect((await store.transcript.recent(c, 2)).map((m) => m.content)).toEqual(['two', 'three']);
    });

    it("finds a person's waiting runs on one platform, and only theirs", async () => {
      const question = {
        question: 'Connect?',
        options: [],
        toolCallId: 'call-1',
        askedAt: 0,
        messageId: null,
        userId: 'U1',
      };
      const park = async (key: { platform: string; thread: string }, principal: string, wait: boolean) => {
        const c = await store.conversations.ensure({ ...channel, ...key });
        const run = await store.runs.create(c, null, { userId: principal });
        if (wait) await store.runs.park(run.id, question, 60_000);
        return run.id;
      };
      const first = await park({ platform: 'memory', thread: 'W1' }, 'U1', true);
      const second = await park({ platform: 'memory', thread: 'W2' }, 'U1', true);
      await park({ platform: 'memory', thread: 'W3' }, 'U1', false);
      await park({ platform: 'memory', thread: 'W4' }, 'U2', true);
      await park({ platform: 'memoryx', thread: 'W5' }, 'U1', true);
      expect((await peer.runs.waitingFor('memory', 'U1', 10)).map((r) => r.id).sort()).toEqual([first, second].sort());
      expect(await peer.runs.waitingFor('memory', 'U1', 1)).toHaveLength(1);
    });

    it('parks a run with its question and hands the question back once when it resumes', async () => {
      const c = await conversation('T1');
      const run = await store.runs.create(c, null);
      const question = {
        question: 'Which?',
        options: [],
        toolCallId: 'call-1',
        askedAt: 0,
        messageId: null,
        userId: 'U1',
      };
      expect(await store.runs.park(run.id, question, 10_000)).toBe(true);
      expect(await store.runs.recordAnswer(run.id, { text: 'A', userId: 'U1', source: 'typed' })).toBe(true);
      expect((await store.runs.expiredQuestions(5)).map((r) => r.id)).toEqual([run.id]);
      expect(await store.runs.unpark(run.id)).toMatchObject({ question: 'Which?', answer: { text: 'A' } });
      expect(await store.runs.unpark(run.id)).toBeNull();
    });

    it("keeps a click's answer only for the question its button belongs to, and only the first one", async () => {
      const c = await conversation('T1');
      const run = await store.runs.create(c, null);
      const question = {
        id: 'q2',
        question: 'Which size?',
        options: ['A4'],
        toolCallId: 'call-2',
        askedAt: 0,
        messageId: null,
        userId: 'U1',
      };
      expect(await store.runs.park(run.id, question, 10_000)).toBe(true);
      expect(await store.runs.recordAnswer(run.id, { text: 'PDF', userId: 'U1', source: 'click' }, 'q1')).toBe(false);
      const untouched = await store.runs.get(run.id);
      expect(untouched?.question).toMatchObject({ id: 'q2', question: 'Which size?' });
      expect(untouched?.question?.answer).toBeUndefined();
      expect(untouched?.askExpiresAt).toBe(10_000);
      expect(await store.runs.recordAnswer(run.id, { text: 'A4', userId: 'U1', source: 'click' }, 'q2')).toBe(true);
      expect(await store.runs.recordAnswer(run.id, { text: 'Letter', userId: 'U1', source: 'click' }, 'q2')).toBe(
        false,
      );
      expect(await store.runs.unpark(run.id)).toMatchObject({ id: 'q2', answer: { text: 'A4', source: 'click' } });
    });

    it('hands a run its fence in the claiming transaction, and the fence holds while nobody else claims the run', async () => {
      const c = await conversation('T1');
      const { run, fence } = await store.atomically(async (tx) => {
        const created = await tx.runs.create(c, null);
        return { run: created, fence: await tx.runs.fence(created.id) };
      });
      expect(fence.runId).toBe(run.id);
      expect(await store.atomically((tx) => tx.runs.holds(fence))).toBe(true);
      await expect(store.runs.fence('no-such-run')).rejects.toThrow();
    });

    it('commits a transaction’s writes together, or none of them', async () => {
      const c = await conversation('T1');
      await expect(
        store.atomically(async (tx) => {
          await tx.tasks.add({ conversationId: c, title: 'lost', description: 'lost', createdBy: 'user' });
          await tx.dedupe.firstSight('msg:lost', 1);
          throw new Error('abort');
        }),
      ).rejects.toThrow('abort');
      expect(await store.tasks.list(c)).toEqual([]);
      expect(await store.dedupe.firstSight('msg:lost', 2)).toBe(true);
      const kept = await store.atomically(
        async (tx) =>
          (await tx.tasks.add({ conversationId: c, title: 'kept', description: 'kept', createdBy: 'user' })).ok,
      );
      expect(kept).toBe(true);
      expect((await store.tasks.list(c)).map((t) => t.title)).toEqual(['kept']);
    });

    it('lets exactly one of several racing stores start a run in a conversation; the others hear it is busy', async () => {
      const c = await conversation('T1');
      const results = await race(6, (s) => s.runs.create(c, null));
      expect(values(results)).toHaveLength(1);
      for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(ConversationBusyError);
      expect((await peer.runs.active(c))?.id).toBe(values(results)[0]!.id);
    });

    it('hands a task to exactly one of several racing claimers', async () => {
      const c = await conversation('T1');
      const first = await task(c, 'first');
      await task(c, 'second');
      const claimed = values(await race(6, (s) => s.tasks.claimNext(c))).filter((t) => t !== null);
      expect(claimed.map((t) => t.id)).toEqual([first.id]);
      expect((await store.tasks.list(c)).map((t) => t.status)).toEqual(['in_progress', 'pending']);
    });

    it('starts one run per conversation when racing stores claim and start in one transaction each', async () => {
      const c = await conversation('T1');
      await task(c, 'first');
      await task(c, 'second');
      const start = (s: Store) =>
        s.atomically(async (tx) => {
          if (await tx.runs.active(c)) return null;
          const claimedTask = await tx.tasks.claimNext(c);
          return claimedTask ? tx.runs.create(c, claimedTask.id) : null;
        });
      const results = await race(6, start);
      for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(ConversationBusyError);
      const started = values(results).filter((r) => r !== null);
      expect(started).toHaveLength(1);
      const tasks = await store.tasks.list(c);
      expect(tasks.map((t) => t.status)).toEqual(['in_progress', 'pending']);
      expect(started[0]!.taskId).toBe(tasks[0]!.id);
    });

    it('counts a first sight once when racing stores see the same event', async () => {
      const sights = values(await race(8, (s) => s.dedupe.firstSight('msg:raced', 1000)));
      expect(sights.filter(Boolean)).toHaveLength(1);
    });

    it('claims a schedule fire for exactly one of several racing stores', async () => {
      const row = await store.schedules.insert(dueInAMinute('p'));
      const fires = values(await race(6, (s) => s.schedules.recordFire(row.id, 60_000, 60_500))).filter(
        (r) => r !== null,
      );
      expect(fires).toHaveLength(1);
      expect((await peer.schedules.get(row.id))?.runCount).toBe(1);
    });

    it('fires a schedule with its launch for exactly one of several racing stores, and hands a pending launch to one claimer at a time', async () => {
      const row = await store.schedules.insert(dueInAMinute('the digest'));
      const fires = values(await race(6, (s) => s.schedules.fireAndLaunch(row.id, 60_000, 60_500, 180_500))).filter(
        (r) => r !== null,
      );
      expect(fires).toHaveLength(1);
      const launch = fires[0]!.launch;
      expect(launch).toMatchObject({
        scheduleId: row.id,
        firedAt: 60_000,
        status: 'pending',
        prompt: 'the digest',
        target: 'channel',
        attempts: 1,
        notBefore: 180_500,
        noteOutboxId: null,
      });
      // Claimed by the fire until 180 500: nobody else takes it before then, one claimer after.
      expect(await peer.schedules.dueLaunches(100_000, 10)).toEqual([]);
      expect(
        values(await race(4, (s) => s.schedules.claimLaunch(launch.id, 100_000, 220_000))).filter((r) => r !== null),
      ).toHaveLength(0);
      expect(await peer.schedules.nextLaunchDue()).toBe(180_500);
      expect(await peer.schedules.dueLaunches(200_000, 10)).toEqual([launch.id]);
      const claims = values(await race(4, (s) => s.schedules.claimLaunch(launch.id, 200_000, 320_000))).filter(
        (r) => r !== null,
      );
      expect(claims).toHaveLength(1);
      expect(claims[0]).toMatchObject({ attempts: 2, notBefore: 320_000 });
      // Its post is recorded once; it ends once.
      expect(await store.schedules.setLaunchNote(launch.id, 41, 200_100)).toBe(true);
      expect(await peer.schedules.setLaunchNote(launch.id, 42, 200_200)).toBe(false);
      expect(
        values(await race(4, (s) => s.schedules.endLaunch(launch.id, 'started', null, 200_300))).filter(Boolean),
      ).toHaveLength(1);
      expect(await peer.schedules.launch(launch.id)).toMatchObject({ status: 'started', noteOutboxId: 41 });
      expect(await peer.schedules.nextLaunchDue()).toBeNull();
    });

    it('runs afterCommit callbacks once the transaction committed, never after a rollback; a nested atomically joins it', async () => {
      const c = await conversation('T1');
      const seen: string[] = [];
      await store.atomically(async (tx) => {
        await tx.tasks.add({ conversationId: c, title: 'a', description: 'a', createdBy: 'user' });
        tx.afterCommit(() => seen.push('outer'));
        await tx.atomically(async (inner) => {
          await inner.tasks.add({ conversationId: c, title: 'b', description: 'b', createdBy: 'user' });
          inner.afterCommit(() => seen.push('inner'));
        });
        expect(seen).toEqual([]);
      });
      expect(seen).toEqual(['outer', 'inner']);
      await expect(
        store.atomically(async (tx) => {
          tx.afterCommit(() => seen.push('rolled back'));
          await tx.atomically(async (inner) =>
            inner.tasks.add({ conversationId: c, title: 'lost', description: 'lost', createdBy: 'user' }),
          );
          throw new Error('abort');
        }),
      ).rejects.toThrow('abort');
      expect(seen).toEqual(['outer', 'inner']);
      expect((await peer.tasks.list(c)).map((t) => t.title)).toEqual(['a', 'b']);
      store.afterCommit(() => seen.push('at once'));
      expect(seen).toContain('at once');
    });

    it('reads what its own open transaction wrote, and counts gauges as numbers', async () => {
      const c = await conversation('T1');
      await store.atomically(async (tx) => {
        await tx.tasks.add({ conversationId: c, title: 'a', description: 'a', createdBy: 'user' });
        expect(await tx.tasks.list(c)).toHaveLength(1);
      });
      await store.runs.create(c, null);
      expect(await store.probe.gauges()).toEqual({ runsActive: 1, tasksPending: 1 });
      expect(await store.probe.writeProblem()).toBeNull();
    });

    it('keeps preview messages of a live answer: settled with the answer, or turned into pending retractions', async () => {
      const c = await conversation('T1');
      const finished = await store.runs.create(c, null);
      const [answer] = await store.outbox.add(c, finished.id, 'answer', [{ text: 'done' }]);
      const preview = await store.outbox.addPreview(c, finished.id, 'P1');
      expect(await store.outbox.state(preview)).toMatchObject({ status: 'preview', platformMessageId: 'P1' });
      await store.outbox.markStreamed(finished.id, [{ id: answer!, platformMessageId: 'P1' }]);
      expect(await store.outbox.state(answer!)).toMatchObject({ status: 'posted', platformMessageId: 'P1' });
      expect((await store.outbox.state(preview))?.status).toBe('posted');
      await store.runs.transition(finished.id, ['running'], 'completed');

      const interrupted = await store.runs.create(c, null);
      await store.outbox.addPreview(c, interrupted.id, 'P2');
      expect(await peer.outbox.retractPreviews(interrupted.id, '(interrupted)')).toEqual([c]);
      expect(await store.outbox.nextPending(c)).toMatchObject({
        purpose: 'retract',
        payload: { text: '(interrupted)' },
      });
      expect(await store.outbox.retractPreviews(interrupted.id, '(interrupted)')).toEqual([]);
    });

    it('settles a streamed answer of several pieces with each its own message id, and leaves every other row as it was', async () => {
      const c = await conversation('T1');
      const run = await store.runs.create(c, null);
      const elsewhere = await conversation('T2');
      const other = await store.runs.create(elsewhere, null);
      const [one, two, three] = await store.outbox.add(c, run.id, 'answer', [
        { text: 'one' },
        { text: 'two' },
        { text: 'three' },
      ]);
      const preview = await store.outbox.addPreview(c, run.id, 'P0');
      const othersPreview = await store.outbox.addPreview(elsewhere, other.id, 'Q0');
      await store.outbox.markStreamed(run.id, [
        { id: one!, platformMessageId: 'M1' },
        { id: two!, platformMessageId: 'M2' },
      ]);
      expect(await store.outbox.state(one!)).toMatchObject({ status: 'posted', platformMessageId: 'M1' });
      expect(await store.outbox.state(two!)).toMatchObject({ status: 'posted', platformMessageId: 'M2' });
      expect(await store.outbox.state(three!)).toMatchObject({ status: 'pending', platformMessageId: null });
      expect(await store.outbox.state(preview)).toMatchObject({ status: 'posted', platformMessageId: 'P0' });
      expect(await store.outbox.state(othersPreview)).toMatchObject({ status: 'preview', platformMessageId: 'Q0' });
      // No run: only the rows named; no rows: only the run's previews.
      await store.outbox.markStreamed(null, [{ id: three!, platformMessageId: 'M3' }]);
      expect(await store.outbox.state(three!)).toMatchObject({ status: 'posted', platformMessageId: 'M3' });
      expect((await store.outbox.state(othersPreview))?.status).toBe('preview');
      await store.outbox.markStreamed(other.id, []);
      expect(await store.outbox.state(othersPreview)).toMatchObject({ status: 'posted', platformMessageId: 'Q0' });
      // A row already posted keeps its message id.
      await store.outbox.markStreamed(run.id, [{ id: one!, platformMessageId: 'M9' }]);
      expect((await store.outbox.state(one!))?.platformMessageId).toBe('M1');
    });

    it('records a preview message before its post leaves, learns its id once, and can settle a retraction with nothing to take back', async () => {
      const c = await conversation('T1');
      const run = await store.runs.create(c, null);
      const [posted] = await store.outbox.add(c, run.id, 'update', [{ text: 'working on it' }]);
      await store.outbox.markPosted(posted!, 'U1');
      const intent = await store.outbox.addPreview(c, run.id, null);
      expect(await store.outbox.state(intent)).toMatchObject({ status: 'preview', platformMessageId: null });
      const probe = await peer.outbox.previewProbe(intent, 5_000);
      expect(probe?.known).toEqual(['U1']);
      expect(typeof probe?.since).toBe('number');
      expect(await store.outbox.previewProbe(intent + 1000, 5_000)).toBeNull();

      await peer.outbox.setPreviewMessage(intent, 'P1');
      await store.outbox.setPreviewMessage(intent, 'P-late');
      expect(await store.outbox.state(intent)).toMatchObject({ status: 'preview', platformMessageId: 'P1' });

      expect(probe?.until).toBeNull();
      const lost = await store.outbox.addPreview(c, run.id, null);
      await store.outbox.add(c, run.id, 'answer', [{ text: 'the run going on' }]);
      await store.outbox.retractPreviews(run.id, '(interrupted)');
      expect(await store.outbox.previewProbe(lost, 5_000)).toMatchObject({ until: null });
      await store.outbox.add(c, run.id, 'note', [{ text: 'restarted' }]);
      expect((await store.outbox.previewProbe(lost, 5_000))?.until).toBe(probe?.since);
      expect((await store.outbox.previewProbe(lost, 5_000))?.known.sort()).toEqual(['P1', 'U1']);
      await peer.outbox.markNothingToRetract(lost);
      expect(await store.outbox.state(lost)).toMatchObject({ status: 'posted', platformMessageId: null });
      expect(await store.outbox.nextPending(c)).toMatchObject({ id: intent, purpose: 'retract' });
    });
    it("records a model answer's step, charge, transcript row and post alike whether the store writes it in one statement (writeAnswer) or in a transaction of its parts", async () => {
      const outbox = createOutbox({
        store,
        clock: systemClock,
        logger: silentLogger(),
        adapters: new Map(),
        refOf: (id) => store.conversations.refOf(id),
        onQuestionPosted: async () => undefined,
      });
      // The parts in one transaction, as where the store offers no one-statement write (SQLite).
      const transactional: RunPosts = {
        atomically: outbox.atomically,
        record: outbox.record,
        delivered: outbox.delivered,
        dropUnsent: outbox.dropUnsent,
        recordPreview: outbox.recordPreview,
        retractPreviews: outbox.retractPreviews,
      };
      const budgets = createBudget({
        store: store.usage,
        cost: store.cost,
        limits: {},
        pricing: { m: { inputPerMTok: 1_000_000, outputPerMTok: 2_000_000, cachedInputPerMTok: 500_000 } },
        now: () => Date.UTC(2026, 0, 3),
      });
      const answers = async (thread: string, posts: RunPosts) => {
        const c = await conversation(thread);
        const run = await store.runs.create(c, null);
        const writes = fenceRunWrites(await store.runs.fence(run.id), { ...store, posts }, () => undefined);
        const budget = budgets.forRun(run.id, { platform: 'memory', userId: thread }, 0);
        const calls = [{ id: 'call-1', name: 'list_tasks', arguments: '{}' }];
        const steps = [
          // Long enough to be posted as two messages; with tool calls; charged at the model's price.
          {
            text: `${'a'.repeat(1990)} ${'b'.repeat(100)}`,
            toolCalls: calls,
            usage: { promptTokens: 30, completionTokens: 4, cachedTokens: 10, model: 'm' },
          },
          // Tool calls only: nothing posted; charged to the unknown model.
          { text: null, toolCalls: calls, usage: { promptTokens: 5, completionTokens: 1 } },
          // No usage reported: nothing charged.
          { text: 'done', toolCalls: [], usage: undefined },
        ];
        const written = [];
        for (const step of steps)
          written.push(
            await writeAnswerStep(writes.posts, {
              conversationId: c,
              runId: run.id,
              ...step,
              budget,
              privacy: runPrivacy('U1', false),
              stream: undefined,
            }),
          );
        // Private material in a 1:1 conversation: the row is private to its principal, the answer posted to them.
        const privately = runPrivacy('U1', false);
        privately.obtained();
        written.push(
          await writeAnswerStep(writes.posts, {
            conversationId: c,
            runId: run.id,
            text: 'private',
            toolCalls: [],
            usage: { promptTokens: 1, completionTokens: 1, model: 'm' },
            budget,
            privacy: privately,
            stream: undefined,
          }),
        );
        const posted = [];
        for (let row = await store.outbox.nextPending(c); row; row = await store.outbox.nextPending(c)) {
          posted.push({ purpose: row.purpose, payload: row.payload, ofRun: row.runId === run.id });
          await store.outbox.markPosted(row.id, `M${row.id}`);
        }
        const transcript = (await store.transcript.recent(c, 20)).map((r) => ({
          role: r.role,
          content: r.content,
          toolCalls: r.toolCalls,
          toolCallId: r.toolCallId,
          privateTo: r.privateTo ?? null,
          ofRun: r.runId === run.id,
        }));
        const row = await store.runs.get(run.id);
        return {
          steps: written.map((w) => w.steps),
          posts: written.map((w) => w.ticket.length),
          run: { steps: row?.steps, tokens: row?.tokens },
          spent: [budget.spent(), budget.spentUsd()],
          usage: await store.usage.userDay('2026-01-03', `memory:${thread}`),
          models: await store.cost.modelsSince('2026-01-01', `memory:${thread}`),
          runUsd: await store.cost.runUsd(run.id),
          transcript,
          posted,
        };
      };
      const inOne = await answers('one-statement', outbox);
      const inParts = await answers('in-parts', transactional);
      expect(inOne).toEqual(inParts);
      expect(inOne).toMatchObject({ steps: [1, 2, 3, 4], posts: [2, 0, 1, 1], run: { steps: 4, tokens: 42 } });
      expect(inOne.usage).toEqual({ promptTokens: 36, completionTokens: 6 });
      expect(inOne.models.map((m) => m.model).sort()).toEqual(['m', 'unknown']);
      expect(inOne.runUsd).toBeGreaterThan(0);
      expect(inOne.spent).toEqual([42, inOne.runUsd]);
      expect(inOne.transcript.map((r) => [r.content?.length ?? null, r.toolCalls?.length ?? 0, r.privateTo])).toEqual([
        [2091, 1, null],
        [null, 1, null],
        [4, 0, null],
        [7, 0, 'U1'],
      ]);
      expect(inOne.posted.map((p) => [p.purpose, p.payload.text.length, p.ofRun])).toEqual([
        ['answer', 1990, true],
        ['answer', 100, true],
        ['answer', 4, true],
        ['answer', 7, true],
      ]);
    });
  });
}
