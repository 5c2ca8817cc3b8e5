import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/store.js';

/** Makes a fresh, empty, migrated store for one test, and disposes of it afterwards. */
export type StoreFactory = () => Promise<{ store: Store; close(): Promise<void> }>;

const channel = { platform: 'memory', workspace: 'W1', channel: 'C1' };
const ref = (thread: string) => ({ ...channel, thread });

/**
 * What the core relies on from any Store, whatever the database under it. Each implementation's test
 * calls this with its own factory; nothing here assumes SQLite.
 */
export function storeContract(name: string, factory: StoreFactory): void {
  describe(`${name}: the Store contract`, () => {
    let store: Store;
    let close: () => Promise<void>;
    beforeEach(async () => {
      ({ store, close } = await factory());
    });
    afterEach(async () => close());

    const conversation = (thread: string) => store.conversations.ensure(ref(thread));
    const task = async (conversationId: string, title: string, extra: { blockedBy?: number[] } = {}) => {
      const r = await store.tasks.add({ conversationId, title, description: title, createdBy: 'user', ...extra });
      if (!r.ok) throw new Error(r.error);
      return r.task;
    };

    it('keeps at most one active run per conversation', async () => {
      const c = await conversation('T1');
      const first = await store.runs.create(c, null);
      await expect(store.runs.create(c, null)).rejects.toThrow();
      expect((await store.runs.active(c))?.id).toBe(first.id);
      expect(await store.runs.transition(first.id, ['running'], 'completed')).toBe(true);
      expect(await store.runs.transition(first.id, ['running'], 'failed')).toBe(false);
      expect(await store.runs.active(c)).toBeNull();
      expect((await store.runs.create(c, null)).status).toBe('running');
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

    it('de-duplicates: only the first sight of a key counts', async () => {
      expect(await store.dedupe.firstSight('msg:1', 1000)).toBe(true);
      expect(await store.dedupe.firstSight('msg:1', 2000)).toBe(false);
      expect(await store.dedupe.prune(1500)).toBe(1);
      expect(await store.dedupe.firstSight('msg:1', 3000)).toBe(true);
    });

    it('claims a schedule fire once, and only with the due time it was armed for', async () => {
      const row = await store.schedules.insert({ ...channel, target: 'channel', conversationId: null, prompt: 'p', kind: 'interval', spec: '10', timezone: 'UTC', status: 'active', anchorAt: 0, nextRunAt: 60_000, createdBy: 'U1', createdAt: 0 });
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
      expect(await store.outbox.state(a!)).toEqual({ status: 'posted', platformMessageId: 'P1' });
      expect(await store.outbox.pendingConversations()).toEqual([c]);
    });

    it('adds usage up per person and day, and returns the run’s running total', async () => {
      const c = await conversation('T1');
      const run = await store.runs.create(c, null);
      expect(await store.usage.record(run.id, '2026-01-05', 'slack:U1', { promptTokens: 100, completionTokens: 20 })).toBe(120);
      expect(await store.usage.record(run.id, '2026-01-05', 'slack:U1', { promptTokens: 10, completionTokens: 2 })).toBe(132);
      await store.usage.record(run.id, '2026-01-06', 'slack:U2', { promptTokens: 1, completionTokens: 1 });
      expect(await store.usage.userDay('2026-01-05', 'slack:U1')).toEqual({ promptTokens: 110, completionTokens: 22 });
      expect(await store.usage.teamSince('2026-01-01')).toEqual({ promptTokens: 111, completionTokens: 23 });
      expect(await store.usage.userDay('2026-01-07', 'slack:U1')).toEqual({ promptTokens: 0, completionTokens: 0 });
      expect((await store.usage.topUsersSince('2026-01-01', 5)).map((u) => u.user)).toEqual(['slack:U1', 'slack:U2']);
    });

    it('returns the transcript oldest first, the newest `limit` rows', async () => {
      const c = await conversation('T1');
      for (const content of ['one', 'two', 'three']) await store.transcript.append({ conversationId: c, runId: null, role: 'user', content });
      expect((await store.transcript.recent(c, 2)).map((m) => m.content)).toEqual(['two', 'three']);
    });

    it('parks a run with its question and hands the question back once when it resumes', async () => {
      const c = await conversation('T1');
      const run = await store.runs.create(c, null);
      const question = { question: 'Which?', options: [], toolCallId: 'call-1', askedAt: 0, messageId: null, userId: 'U1' };
      expect(await store.runs.park(run.id, question, 10_000)).toBe(true);
      expect(await store.runs.recordAnswer(run.id, { text: 'A', userId: 'U1', source: 'typed' })).toBe(true);
      expect((await store.runs.expiredQuestions(5)).map((r) => r.id)).toEqual([run.id]);
      expect(await store.runs.unpark(run.id)).toMatchObject({ question: 'Which?', answer: { text: 'A' } });
      expect(await store.runs.unpark(run.id)).toBeNull();
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
      const kept = await store.atomically(async (tx) => (await tx.tasks.add({ conversationId: c, title: 'kept', description: 'kept', createdBy: 'user' })).ok);
      expect(kept).toBe(true);
      expect((await store.tasks.list(c)).map((t) => t.title)).toEqual(['kept']);
    });
  });
}
