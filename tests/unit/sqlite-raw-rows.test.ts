import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { conversations, messages, runs, tasks } from '../../src/db/schema.js';
import { createSqliteStore } from '../../src/composition/sqlite-store.js';
import { FakeClock } from '../fakes/fake-clock.js';

/** The store's hand-mapped raw reads must give exactly the rows drizzle's own mapping gives. */
describe('SQLite rows read raw', () => {
  it('match drizzle reads for runs, tasks, conversations and the transcript, JSON, booleans and nulls included', async () => {
    const db = openDatabase(':memory:');
    const store = createSqliteStore(db, new FakeClock());
    const conv = await store.conversations.ensure(
      { platform: 'memory', workspace: 'W', channel: 'C', thread: 'T' },
      'Europe/Paris',
    );
    const first = await store.tasks.add({
      conversationId: conv,
      title: 'first',
      description: 'd1',
      createdBy: 'user',
      requestedBy: 'U1',
      sourceMessageId: 'm1',
    });
    if (!first.ok) throw new Error(first.error);
    const second = await store.tasks.add({
      conversationId: conv,
      title: 'second',
      description: 'd2',
      createdBy: 'agent',
      blockedBy: [first.task.id],
    });
    if (!second.ok) throw new Error(second.error);
    db.update(tasks)
      .set({ images: [{ name: 'a.png', url: 'data:image/png;base64,AA' }] })
      .where(eq(tasks.id, first.task.id))
      .run();

    const claimed = await store.tasks.claimNext(conv);
    expect(claimed?.id).toBe(first.task.id);
    const run = await store.runs.create(conv, first.task.id);
    await store.runs.park(
      run.id,
      { toolCallId: 'call1', question: 'Which one?', options: ['a', 'b'], askedAt: 1, messageId: null, userId: 'U1' },
      5,
    );
    await store.transcript.append({
      conversationId: conv,
      runId: run.id,
      role: 'user',
      content: 'hi',
      authorId: 'U1',
      platformMessageId: 'm1',
    });
    await store.transcript.append({
      conversationId: conv,
      runId: run.id,
      role: 'assistant',
      content: null,
      toolCalls: [{ id: 'call1', name: 'ask_user', arguments: '{}' }],
    });

    const drizzleTask = (id: number) => db.select().from(tasks).where(eq(tasks.id, id)).get();
    expect(await store.tasks.get(first.task.id)).toStrictEqual(drizzleTask(first.task.id));
    expect(await store.tasks.get(second.task.id)).toStrictEqual(drizzleTask(second.task.id));
    expect((await store.tasks.get(second.task.id))?.blocked).toBe(true);
    expect(second.task).toStrictEqual(drizzleTask(second.task.id));
    expect(claimed).toStrictEqual(drizzleTask(first.task.id));

    const drizzleRun = db.select().from(runs).where(eq(runs.id, run.id)).get();
    expect(await store.runs.get(run.id)).toStrictEqual(drizzleRun);
    expect(await store.runs.active(conv)).toStrictEqual(drizzleRun);
    expect(await store.runs.expiredQuestions(10)).toStrictEqual([drizzleRun]);
    expect(run).toStrictEqual({
      ...drizzleRun,
      status: 'running',
      question: null,
      askExpiresAt: null,
      updatedAt: run.updatedAt,
    });

    expect(await store.conversations.get(conv)).toStrictEqual(
      db.select().from(conversations).where(eq(conversations.id, conv)).get(),
    );
    expect(await store.transcript.recent(conv, 10)).toStrictEqual(
      db.select().from(messages).where(eq(messages.conversationId, conv)).all(),
    );
    db.$client.close();
  });
});
