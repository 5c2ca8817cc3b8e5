import { beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../src/db/client.js';
import { createSqliteStore } from '../../src/composition/sqlite-store.js';
import type { TaskService } from '../../src/tasks/task-service.js';
import { FakeClock } from '../fakes/fake-clock.js';

let db: Db;
let tasks: TaskService;
let clock: FakeClock;
let conv: string;
let other: string;

beforeEach(async () => {
  db = openDatabase(':memory:');
  clock = new FakeClock();
  const store = createSqliteStore(db, clock);
  tasks = store.tasks;
  const { conversations } = store;
  conv = await conversations.ensure({ platform: 'memory', workspace: 'W', channel: 'C', thread: 'T1' });
  other = await conversations.ensure({ platform: 'memory', workspace: 'W', channel: 'C', thread: 'T2' });
});

const add = async (title: string, blockedBy: number[] = [], c = conv) => {
  const r = await tasks.add({ conversationId: c, title, description: title, createdBy: 'agent', blockedBy });
  if (!r.ok) throw new Error(r.error);
  return r.task;
};

describe('task service', () => {
  it('hands out tasks in order, one at a time per conversation', async () => {
    const a = await add('a');
    await add('b');
    expect((await tasks.claimNext(conv))?.id).toBe(a.id);
    expect(await tasks.claimNext(conv)).toBeNull();
    await tasks.complete(conv, a.id, 'done');
    expect((await tasks.claimNext(conv))?.title).toBe('b');
  });

  it('keeps a task blocked until every blocker is completed, and stores blockers as a list', async () => {
    const a = await add('a');
    const b = await add('b');
    const c = await add('c', [a.id, b.id]);
    expect(c.blockedBy).toEqual([a.id, b.id]);
    expect(c.blocked).toBe(true);
    await tasks.complete(conv, (await tasks.claimNext(conv))!.id, 'x');
    expect((await tasks.get(c.id))!.blocked).toBe(true);
    await tasks.fail(conv, (await tasks.claimNext(conv))!.id, 'broke');
    expect((await tasks.get(c.id))!.blocked).toBe(true);
    expect(await tasks.claimNext(conv)).toBeNull();
  });

  it('unblocks dependents when a blocker is deleted', async () => {
    const a = await add('a');
    const c = await add('c', [a.id]);
    expect((await tasks.delete(conv, a.id)).ok).toBe(true);
    expect(await tasks.get(c.id)).toMatchObject({ blocked: false, blockedBy: [] });
  });

  it('rejects blockers from another conversation, self-blocking and cycles with a clear error', async () => {
    const a = await add('a');
    const elsewhere = await add('x', [], other);
    expect(
      await tasks.add({
        conversationId: conv,
        title: 'b',
        description: 'b',
        createdBy: 'agent',
        blockedBy: [elsewhere.id],
      }),
    ).toMatchObject({
      ok: false,
      error: expect.stringMatching(/not in this conversation/),
    });
    expect(await tasks.update(conv, a.id, { addBlockedBy: [a.id] })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/itself/),
    });
    const b = await add('b', [a.id]);
    expect(await tasks.update(conv, a.id, { addBlockedBy: [b.id] })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/cycle/),
    });
  });

  it('finishes a task once: another ending is refused with its status, the same one again keeps the newest summary', async () => {
    const t = await add('t');
    expect(await tasks.complete(conv, t.id, 'first')).toMatchObject({
      ok: true,
      task: { status: 'completed', resultSummary: 'first' },
    });
    expect(await tasks.fail(conv, t.id, 'late')).toEqual({ ok: false, error: `Task #${t.id} is already completed.` });
    expect(await tasks.complete(conv, t.id, 'again')).toMatchObject({
      ok: true,
      task: { status: 'completed', resultSummary: 'again' },
    });
    expect(await tasks.get(t.id)).toMatchObject({ status: 'completed', resultSummary: 'again', failReason: null });
    expect(await tasks.cancel(conv, 9_999)).toMatchObject({ ok: false, error: expect.stringMatching(/No task #9999/) });
  });

  it("does not let one conversation touch another conversation's task", async () => {
    const mine = await add('mine');
    expect(await tasks.complete(other, mine.id, 'x')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/No task #/),
    });
    expect((await tasks.delete(other, mine.id)).ok).toBe(false);
  });

  it('refuses to delete the task in progress', async () => {
    const a = await add('a');
    await tasks.claimNext(conv);
    expect(await tasks.delete(conv, a.id)).toMatchObject({ ok: false, error: expect.stringMatching(/in progress/) });
  });

  it('waits for not_before after a requeue and counts attempts', async () => {
    const a = await add('a');
    await tasks.claimNext(conv);
    await tasks.requeue(a.id, clock.now() + 30_000, 'model down');
    expect(await tasks.claimNext(conv)).toBeNull();
    expect(await tasks.findReadyConversations(10, new Set())).toEqual([]);
    clock.advance(30_000);
    expect(await tasks.findReadyConversations(10, new Set())).toEqual([conv]);
    expect(await tasks.claimNext(conv)).toMatchObject({ id: a.id, attempts: 2, status: 'in_progress' });
  });

  it('finds ready conversations, skipping excluded and busy ones, up to the limit', async () => {
    await add('a');
    await add('b', [], other);
    expect((await tasks.findReadyConversations(10, new Set())).sort()).toEqual([conv, other].sort());
    expect(await tasks.findReadyConversations(1, new Set())).toHaveLength(1);
    expect(await tasks.findReadyConversations(10, new Set([conv]))).toEqual([other]);
  });

  it('cancels every pending task of a conversation at once', async () => {
    await add('a');
    await add('b');
    await add('c', [], other);
    expect(await tasks.cancelPending(conv)).toBe(2);
    expect((await tasks.list(conv)).map((t) => t.status)).toEqual(['cancelled', 'cancelled']);
    expect((await tasks.list(other))[0]!.status).toBe('pending');
  });
});
