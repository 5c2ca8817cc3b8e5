import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { recoverTakenOverRun } from '../../src/runtime/restarts/recovery.js';
import { notices } from '../../src/runs/run-notices.js';
import { carriedQuestions } from '../../src/questions/runtime/elicitation-waits.js';
import { waitFor } from '../fakes/wait-for.js';
import { startHarness, type Harness } from './harness.js';

let h: Harness;
afterEach(async () => {
  await h.close();
});

/** A run left `running` by a process that died, on a task claimed `claims` times. */
async function deadRun(claims: number): Promise<{ conversationId: string; taskId: number; runId: string }> {
  const { store } = h.app;
  const thread = h.adapter.thread('C024BE91L', `1700000000.00010${claims}`);
  const conversationId = await store.conversations.ensure(thread);
  const added = await store.tasks.add({
    conversationId,
    title: 'Summarise the report',
    description: 'Summarise the report',
    createdBy: 'user',
    requestedBy: 'U024BE7LH',
  });
  if (!added.ok) throw new Error(added.error);
  for (let i = 1; i < claims; i++) {
    await store.tasks.claimNext(conversationId);
    await store.tasks.requeue(added.task.id, 0);
  }
  await store.tasks.claimNext(conversationId);
  const run = await store.runs.create(conversationId, added.task.id);
  return { conversationId, taskId: added.task.id, runId: run.id };
}

describe('recovering a run taken over from a dead process', () => {
  const deps = () => ({
    posts: h.app.outbox,
    logger: createLogger('silent'),
    maxAttempts: 3,
    carried: carriedQuestions,
  });

  it('marks it interrupted and fails its task, with the note, once the task has used up its attempts', async () => {
    h = await startHarness();
    const dead = await deadRun(3);
    expect(await recoverTakenOverRun(dead.runId, deps())).toEqual({
      conversationId: dead.conversationId,
      taskId: dead.taskId,
      action: 'gave_up',
      attempts: 3,
    });
    expect(await h.app.runs.get(dead.runId)).toMatchObject({ status: 'interrupted' });
    expect(await h.app.tasks.get(dead.taskId)).toMatchObject({ status: 'failed' });
    await waitFor(
      () => h.adapter.posts.some((p) => p.text === notices.restartLimit(dead.taskId, 3)),
      10_000,
      'the note',
    );
  });

  it('leaves a run alone that its owner ended before the takeover was recovered', async () => {
    h = await startHarness();
    const dead = await deadRun(1);
    await h.app.runs.transition(dead.runId, ['running'], 'completed', { summary: 'Done.' });
    expect(await recoverTakenOverRun(dead.runId, deps())).toBeNull();
    expect(await h.app.runs.get(dead.runId)).toMatchObject({ status: 'completed' });
    expect(await h.app.tasks.get(dead.taskId)).toMatchObject({ status: 'in_progress' });
  });

  it('completes a run whose final answer was recorded before its process died, instead of answering again', async () => {
    h = await startHarness();
    const dead = await deadRun(1);
    await h.app.outbox.atomically(async (tx) => {
      await tx.transcript.append({
        conversationId: dead.conversationId,
        runId: dead.runId,
        role: 'assistant',
        content: 'The summary.',
        toolCalls: [],
      });
      return h.app.outbox.record(dead.conversationId, dead.runId, { purpose: 'answer', text: 'The summary.' }, tx);
    });
    expect(await recoverTakenOverRun(dead.runId, deps())).toEqual({
      conversationId: dead.conversationId,
      taskId: dead.taskId,
      action: 'finished',
      attempts: 1,
    });
    expect(await h.app.runs.get(dead.runId)).toMatchObject({ status: 'completed', summary: 'The summary.' });
    expect(await h.app.tasks.get(dead.taskId)).toMatchObject({ status: 'completed' });
    await waitFor(() => h.adapter.posts.some((p) => p.text === 'The summary.'), 10_000, 'the answer');
    expect(h.adapter.posts.map((p) => p.text)).toEqual(['The summary.']);
  });
});
