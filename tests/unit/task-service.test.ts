import { beforeEach, describe, expect, it } from 'vitest';
import { createConversationStore } from '../../src/conversations/conversation-store.js';
import { openDatabase, type Db } from '../../src/db/client.js';
import { createTaskService, type TaskService } from '../../src/tasks/task-service.js';
import { FakeClock } from '../fakes/fake-clock.js';

let db: Db;
let tasks: TaskService;
let clock: FakeClock;
let conv: string;
let other: string;

beforeEach(() => {
  db = openDatabase(':memory:');
  clock = new FakeClock();
  tasks = createTaskService(db, clock);
  const conversations = createConversationStore(db, clock);
  conv = conversations.ensure({ platform: 'memory', workspace: 'W', channel: 'C', thread: 'T1' });
  other = conversations.ensure({ platform: 'memory', workspace: 'W', channel: 'C', thread: 'T2' });
});

const add = (title: string, blockedBy: number[] = [], c = conv) => {
  const r = tasks.add({ conversationId: c, title, description: title, createdBy: 'agent', blockedBy });
  if (!r.ok) throw new Error(r.error);
  return r.task;
};

describe('task service', () => {
  it('hands out tasks in order, one at a time per conversation', () => {
    const a = add('a');
    add('b');
    expect(tasks.claimNext(conv)?.id).toBe(a.id);
    expect(tasks.claimNext(conv)).toBeNull();
    tasks.complete(conv, a.id, 'done');
    expect(tasks.claimNext(conv)?.title).toBe('b');
  });

  it('keeps a task blocked until every blocker is completed, and stores blockers as a list', () => {
    const a = add('a');
    const b = add('b');
    const c = add('c', [a.id, b.id]);
    expect(c.blockedBy).toEqual([a.id, b.id]);
    expect(c.blocked).toBe(true);
    tasks.complete(conv, tasks.claimNext(conv)!.id, 'x');
    expect(tasks.get(c.id)!.blocked).toBe(true);
    tasks.fail(conv, tasks.claimNext(conv)!.id, 'broke');
    expect(tasks.get(c.id)!.blocked).toBe(true);
    expect(tasks.claimNext(conv)).toBeNull();
  });

  it('unblocks dependents when a blocker is deleted', () => {
    const a = add('a');
    const c = add('c', [a.id]);
    expect(tasks.delete(conv, a.id).ok).toBe(true);
    expect(tasks.get(c.id)).toMatchObject({ blocked: false, blockedBy: [] });
  });

  it('rejects blockers from another conversation, self-blocking and cycles with a clear error', () => {
    const a = add('a');
    const elsewhere = add('x', [], other);
    expect(tasks.add({ conversationId: conv, title: 'b', description: 'b', createdBy: 'agent', blockedBy: [elsewhere.id] })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/not in this conversation/),
    });
    expect(tasks.update(conv, a.id, { addBlockedBy: [a.id] })).toMatchObject({ ok: false, error: expect.stringMatching(/itself/) });
    const b = add('b', [a.id]);
    expect(tasks.update(conv, a.id, { addBlockedBy: [b.id] })).toMatchObject({ ok: false, error: expect.stringMatching(/cycle/) });
  });

  it('does not let one conversation touch another conversation\'s task', () => {
    const mine = add('mine');
    expect(tasks.complete(other, mine.id, 'x')).toMatchObject({ ok: false, error: expect.stringMatching(/No task #/) });
    expect(tasks.delete(other, mine.id).ok).toBe(false);
  });

  it('refuses to delete the task in progress', () => {
    const a = add('a');
    tasks.claimNext(conv);
    expect(tasks.delete(conv, a.id)).toMatchObject({ ok: false, error: expect.stringMatching(/in progress/) });
  });

  it('waits for not_before after a requeue and counts attempts', () => {
    const a = add('a');
    tasks.claimNext(conv);
    tasks.requeue(a.id, clock.now() + 30_000, 'model down');
    expect(tasks.claimNext(conv)).toBeNull();
    expect(tasks.findReadyConversations(10, new Set())).toEqual([]);
    clock.advance(30_000);
    expect(tasks.findReadyConversations(10, new Set())).toEqual([conv]);
    expect(tasks.claimNext(conv)).toMatchObject({ id: a.id, attempts: 2, status: 'in_progress' });
  });

  it('finds ready conversations, skipping excluded and busy ones, up to the limit', () => {
    add('a');
    add('b', [], other);
    expect(tasks.findReadyConversations(10, new Set()).sort()).toEqual([conv, other].sort());
    expect(tasks.findReadyConversations(1, new Set())).toHaveLength(1);
    expect(tasks.findReadyConversations(10, new Set([conv]))).toEqual([other]);
  });

  it('cancels every pending task of a conversation at once', () => {
    add('a');
    add('b');
    add('c', [], other);
    expect(tasks.cancelPending(conv)).toBe(2);
    expect(tasks.list(conv).map((t) => t.status)).toEqual(['cancelled', 'cancelled']);
    expect(tasks.list(other)[0]!.status).toBe('pending');
  });
});
