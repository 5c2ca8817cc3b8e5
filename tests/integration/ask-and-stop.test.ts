import { afterEach, describe, expect, it } from 'vitest';
import { parseActionId } from '../../src/chat/action-id.js';
import { waitFor } from '../fakes/wait-for.js';
import { gate, startHarness, type Harness } from './harness.js';
import { useStoreKinds } from '../support/store-kinds.js';
import { toolResultJson } from '../support/tool-result-json.js';

const stores = useStoreKinds();

let h: Harness;
afterEach(async () => h.close());

const askStep = {
  toolCalls: [{ name: 'ask_user', arguments: { question: 'Which format?', options: ['PDF', 'Markdown'] } }],
};

function toolResults(req: { messages: { role: string; content?: unknown }[] }) {
  return req.messages.filter((m) => m.role === 'tool').map((m) => toolResultJson(m.content) as Record<string, unknown>);
}

describe.each(stores.kinds)('ask_user (%s)', (kind) => {
  it('posts the question mentioning the asker with option buttons, waits, and resumes with a typed answer', async () => {
    h = await startHarness(await stores.env(kind));
    h.model.reply(askStep, { text: 'Markdown it is.' });
    const thread = h.adapter.thread();
    await h.adapter.say(thread, 'write the report', { userId: 'U42' });
    await waitFor(() => h.adapter.posts.length === 1);
    await h.app.coordinator.idle();
    const q = h.adapter.posts[0]!;
    expect(q.text).toBe('<@U42> Which format?');
    expect(q.buttons.map((b) => b.label)).toEqual(['PDF', 'Markdown']);
    const conv = await h.app.conversations.ensure(thread);
    expect(await h.app.runs.active(conv)).toMatchObject({ status: 'waiting_user' });
    expect(h.adapter.working.size).toBe(0);

    await h.adapter.say(thread, 'markdown please', { userId: 'U42' });
    await waitFor(() => h.adapter.textsIn(thread).includes('Markdown it is.'));
    expect(toolResults(h.model.requests[1]!)).toEqual([{ ok: true, answer: 'markdown please', answered_by: 'U42' }]);
    expect(await h.app.tasks.list(conv)).toHaveLength(1);
  });

  it('takes an answer that arrives while the question is still being posted', async () => {
    h = await startHarness(await stores.env(kind));
    h.model.reply(askStep, { text: 'Got it.' });
    const posting = gate();
    h.adapter.postGate = posting.promise;
    const thread = h.adapter.thread();
    const first = h.adapter.say(thread, 'write the report');
    await waitFor(() => h.model.requests.length === 1);
    // The run has parked on its question (recorded with the post still held at the platform), not a real-time guess.
    const conversationId = await h.app.conversations.ensure(thread);
    await waitFor(
      async () => (await h.app.runs.active(conversationId))?.status === 'waiting_user',
      10_000,
      'the run parked on its question',
    );
    h.adapter.postGate = null;
    await h.adapter.say(thread, 'PDF');
    posting.open();
    await first;
    await waitFor(() => h.adapter.textsIn(thread).includes('Got it.'), 10_000);
    expect(toolResults(h.model.requests[1]!)[0]).toMatchObject({ answer: 'PDF' });
    expect(await h.app.tasks.list(conversationId)).toHaveLength(1);
  });

  it('accepts a click on an option button as the answer, once', async () => {
    h = await startHarness(await stores.env(kind));
    h.model.reply(askStep, { text: 'PDF then.' });
    const thread = h.adapter.thread();
    await h.adapter.say(thread, 'write the report');
    await waitFor(() => h.adapter.posts[0]?.buttons.length === 2);
    await h.app.coordinator.idle();
    const pdf = h.adapter.posts[0]!.buttons[0]!;
    await h.adapter.click(pdf.actionId, thread, pdf.label);
    const again = await h.adapter.click(pdf.actionId, thread, pdf.label);
    await waitFor(() => h.adapter.textsIn(thread).includes('PDF then.'));
    expect(again?.text).toMatch(/already been answered/);
    expect(toolResults(h.model.requests[1]!)[0]).toMatchObject({ answer: 'PDF' });
    expect(h.model.requests).toHaveLength(2);
  });

  it('refuses a click on a button posted before buttons named their question (no question id): the question still waits for a typed answer', async () => {
    h = await startHarness(await stores.env(kind));
    h.model.reply(askStep, { text: 'Markdown then.' });
    const thread = h.adapter.thread();
    await h.adapter.say(thread, 'write the report');
    await waitFor(() => h.adapter.posts[0]?.buttons.length === 2);
    await h.app.coordinator.idle();
    const pdf = h.adapter.posts[0]!.buttons[0]!;
    const ref = parseActionId(pdf.actionId);
    expect(ref).toMatchObject({ kind: 'answer', questionId: expect.stringMatching(/^[0-9a-f]{8}$/) });
    const legacy = await h.adapter.click(`errand:answer:${ref!.runId}:0`, thread, pdf.label);
    expect(legacy?.text).toMatch(/from an earlier version of Errand.*Type your answer/);
    await h.app.coordinator.idle();
    expect((await h.app.runs.get(ref!.runId))?.status).toBe('waiting_user');
    await h.adapter.say(thread, 'markdown');
    await waitFor(() => h.adapter.textsIn(thread).includes('Markdown then.'));
    expect(toolResults(h.model.requests[1]!)[0]).toMatchObject({ answer: 'markdown' });
  });

  it('resumes a waiting run when the answer arrives after a restart', async () => {
    h = await startHarness(await stores.env(kind));
    h.model.reply(askStep, { text: 'Resumed after restart.' });
    const thread = h.adapter.thread();
    await h.adapter.say(thread, 'write the report');
    await waitFor(() => h.adapter.posts.length === 1);
    await h.app.coordinator.idle();
    await h.restart();
    expect(await h.app.runs.active(await h.app.conversations.ensure(thread))).toMatchObject({ status: 'waiting_user' });
    await h.adapter.say(thread, 'PDF');
    await waitFor(() => h.adapter.textsIn(thread).includes('Resumed after restart.'));
    expect(toolResults(h.model.requests[1]!)[0]).toMatchObject({ answer: 'PDF' });
  });

  it('gives the model no_answer after ASK_TIMEOUT_MINUTES (heartbeat, injected clock)', async () => {
    h = await startHarness({ ...(await stores.env(kind)), ASK_TIMEOUT_MINUTES: '10' });
    h.model.reply(askStep, { text: 'Going with PDF by default.' });
    const thread = h.adapter.thread();
    await h.adapter.say(thread, 'write the report');
    await waitFor(() => h.adapter.posts.length === 1);
    await h.app.coordinator.idle();
    h.clock.advance(9 * 60_000);
    await new Promise((r) => setTimeout(r, 20));
    expect(h.model.requests).toHaveLength(1);
    h.clock.advance(2 * 60_000);
    // The heartbeat re-arms its timer when a tick has finished: one still busy (a slow database) when the
    // clock moved is due a minute later, so the clock keeps moving a minute at a time until the run resumed.
    await waitFor(() => {
      if (h.model.requests.length >= 2) return true;
      h.clock.advance(60_000);
      return false;
    });
    await waitFor(() => h.adapter.textsIn(thread).includes('Going with PDF by default.'));
    expect(toolResults(h.model.requests[1]!)[0]).toMatchObject({ ok: true, answer: 'no_answer' });
  });
});

describe.each(stores.kinds)('stop (%s)', (kind) => {
  it('a "stop" message aborts the in-flight model request, cancels run and task, and posts a note', async () => {
    h = await startHarness(await stores.env(kind));
    h.model.reply({ hang: true });
    const thread = h.adapter.thread();
    await h.adapter.say(thread, 'long job');
    await waitFor(() => h.model.hanging() === 1);
    const started = Date.now();
    await h.adapter.say(thread, 'Stop!');
    await waitFor(() => h.model.requests[0]!.aborted, 1000, 'the HTTP request to be aborted');
    expect(Date.now() - started).toBeLessThan(1000);
    await h.app.coordinator.idle();
    const conv = await h.app.conversations.ensure(thread);
    expect((await h.app.tasks.list(conv))[0]).toMatchObject({ status: 'cancelled' });
    expect(await h.app.runs.active(conv)).toBeNull();
    await waitFor(() => h.adapter.textsIn(thread).length > 0);
    expect(h.adapter.textsIn(thread)).toEqual(['⏹️ Stopped #1 (requested by <@U1>).']);
  });

  it('"stop all" also cancels the pending tasks; plain stop lets the next one start', async () => {
    h = await startHarness(await stores.env(kind));
    h.model.reply({ hang: true }, { hang: true });
    const thread = h.adapter.thread();
    await h.adapter.say(thread, 'job one');
    await waitFor(() => h.model.hanging() === 1);
    await h.adapter.say(thread, 'job two');
    await h.adapter.say(thread, 'job three');
    await h.adapter.say(thread, 'stop');
    await waitFor(() => h.model.requests.length === 2);
    expect(h.model.requests[0]!.aborted).toBe(true);
    await h.adapter.say(thread, 'cancel all');
    await waitFor(() => h.model.requests[1]!.aborted);
    await h.app.coordinator.idle();
    const conv = await h.app.conversations.ensure(thread);
    await waitFor(
      async () => (await h.app.tasks.list(conv)).every((t) => t.status === 'cancelled'),
      10_000,
      'every task cancelled',
    );
    expect((await h.app.tasks.list(conv)).map((t) => t.status)).toEqual(['cancelled', 'cancelled', 'cancelled']);
    await waitFor(() => h.adapter.textsIn(thread).at(-1)?.startsWith('⏹️ Stopped #2') === true);
    expect(h.adapter.textsIn(thread).at(-1)).toBe('⏹️ Stopped #2 (requested by <@U1>). Cancelled 1 pending task.');
  });

  it('"stop all" leaves no pending task a moment to start while the stopped run ends', async () => {
    h = await startHarness(await stores.env(kind));
    h.model.reply({ hang: true }, { text: 'job two ran after all' });
    const thread = h.adapter.thread();
    await h.adapter.say(thread, 'job one');
    await waitFor(() => h.model.hanging() === 1);
    await h.adapter.say(thread, 'job two');
    // Once the stopped run's task is cancelled the queue may start the next one (the stopped run's end pumps it);
    // a slow database or a loaded machine gives it that moment: pending tasks must be gone before it.
    const tasks = h.app.tasks;
    const cancel = tasks.cancel.bind(tasks);
    tasks.cancel = async (...args: Parameters<typeof tasks.cancel>) => {
      const cancelled = await cancel(...args);
      await waitFor(() => h!.model.requests.length === 2, 300).catch(() => undefined);
      return cancelled;
    };
    await h.adapter.say(thread, 'cancel all');
    await waitFor(
      () => h!.adapter.textsIn(thread).some((t) => t.startsWith('⏹️ Stopped #1')),
      5000,
      'the stop to be told',
    );
    await h.app.coordinator.idle();
    const conv = await h.app.conversations.ensure(thread);
    expect((await h.app.tasks.list(conv)).map((t) => t.status)).toEqual(['cancelled', 'cancelled']);
    expect(h.model.requests).toHaveLength(1);
    expect(h.adapter.textsIn(thread).join('\n')).not.toContain('job two ran after all');
  });

  it('the Stop button stops that run', async () => {
    h = await startHarness(await stores.env(kind));
    h.model.reply({ hang: true });
    const thread = h.adapter.thread();
    await h.adapter.say(thread, 'long job');
    await waitFor(() => h.adapter.working.size === 1 && h.model.hanging() === 1);
    const status = [...h.adapter.working.values()][0]!;
    await h.adapter.click(status.stopActionId, thread);
    await waitFor(() => h.model.requests[0]!.aborted);
    await h.app.coordinator.idle();
    expect(await h.app.runs.get(status.runId)).toMatchObject({ status: 'cancelled' });
  });

  it('stops a run that waits for an answer', async () => {
    h = await startHarness(await stores.env(kind));
    h.model.reply(askStep);
    const thread = h.adapter.thread();
    await h.adapter.say(thread, 'write it');
    await waitFor(() => h.adapter.posts.length === 1);
    await h.app.coordinator.idle();
    await h.adapter.say(thread, 'cancel');
    const conv = await h.app.conversations.ensure(thread);
    await waitFor(async () => (await h.app.tasks.list(conv))[0]?.status === 'cancelled');
    expect(await h.app.runs.active(conv)).toBeNull();
  });

  it('stops a run at the wall-clock limit (MAX_RUN_MINUTES)', async () => {
    h = await startHarness({ ...(await stores.env(kind)), MAX_RUN_MINUTES: '1' });
    h.model.reply({ hang: true });
    const thread = h.adapter.thread();
    await h.adapter.say(thread, 'slow');
    await waitFor(() => h.model.hanging() === 1);
    h.clock.advance(60_001);
    await waitFor(() => h.adapter.textsIn(thread).some((t) => /time limit of 1 minutes/.test(t)));
    expect(h.model.requests[0]!.aborted).toBe(true);
  });
});

describe.each(stores.kinds)('restart recovery (%s)', (kind) => {
  it('marks a run that was running as interrupted, re-queues its task with a note, and finishes it', async () => {
    h = await startHarness(await stores.env(kind));
    h.model.reply(
      { text: 'Partial progress.', toolCalls: [{ name: 'send_update', arguments: { text: 'working…' } }] },
      { hang: true },
    );
    const thread = h.adapter.thread();
    await h.adapter.say(thread, 'big job');
    await waitFor(() => h.model.hanging() === 1);
    const conv = await h.app.conversations.ensure(thread);
    const runId = (await h.app.runs.active(conv))!.id;
    h.model.reply({ text: 'Finished after the restart.' });
    await h.restart();
    await waitFor(() => h.adapter.textsIn(thread).includes('Finished after the restart.'));
    expect(h.adapter.textsIn(thread)[0]).toMatch(/restarted while working on task #1/);
    expect(await h.app.runs.get(runId)).toMatchObject({ status: 'interrupted' });
    await h.app.coordinator.idle();
    expect((await h.app.tasks.list(conv))[0]).toMatchObject({ status: 'completed', attempts: 2 });
    const resumed = h.model.requests.at(-1)!;
    expect(resumed.messages.filter((m) => m.content === 'big job')).toHaveLength(1);
    expect(resumed.messages.some((m) => m.content === 'Partial progress.')).toBe(true);
  });
});
