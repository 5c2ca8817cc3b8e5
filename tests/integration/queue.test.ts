import { afterEach, describe, expect, it, vi } from 'vitest';
import { waitFor } from '../fakes/wait-for.js';
import { gate, lastUserMessage, startHarness, type Harness } from './harness.js';
import { useStoreKinds } from '../support/store-kinds.js';
import { toolResultJson } from '../support/tool-result-json.js';
import { BUSY_ELSEWHERE_NOTE_DELAY_MS } from '../../src/runtime/follow-ups/follow-up-teller.js';

const stores = useStoreKinds();

let h: Harness;
afterEach(async () => h.close());

describe.each(stores.kinds)('dispatcher and to-do queue (%s)', (kind) => {
  it('answers a duplicate delivery once', async () => {
    h = await startHarness(await stores.env(kind));
    const thread = h.adapter.thread();
    const id = await h.adapter.say(thread, 'hi');
    await h.adapter.say(thread, 'hi', { messageId: id });
    await waitFor(() => h.adapter.textsIn(thread).length > 0);
    await h.app.coordinator.idle();
    await h.adapter.say(thread, 'hi', { messageId: id });
    await h.app.coordinator.idle();
    expect(await h.app.tasks.list(await h.app.conversations.ensure(thread))).toHaveLength(1);
    expect(h.model.requests).toHaveLength(1);
    expect(h.adapter.textsIn(thread)).toEqual(['ok']);
  });

  it('still recognises a redelivery after a restart', async () => {
    h = await startHarness(await stores.env(kind));
    const thread = h.adapter.thread();
    const id = await h.adapter.say(thread, 'hi');
    await h.app.coordinator.idle();
    await h.restart();
    await h.adapter.say(thread, 'hi', { messageId: id });
    await h.app.coordinator.idle();
    expect(h.model.requests).toHaveLength(1);
  });

  it('queues a message that arrives during a busy run as a task, says so, and runs it after', async () => {
    h = await startHarness(await stores.env(kind));
    const g = gate();
    h.model.reply({ text: 'first done', gate: g.promise }, { text: 'second done' });
    const thread = h.adapter.thread();
    await h.adapter.say(thread, 'first request');
    await waitFor(() => h.model.requests.length === 1);
    await h.adapter.say(thread, 'second request');
    await waitFor(() => h.adapter.textsIn(thread).length === 1);
    expect(h.adapter.textsIn(thread)).toEqual([
      expect.stringMatching(/Queued as task #2\. I'll start on it when I finish/),
    ]);
    expect(h.model.requests).toHaveLength(1);
    g.open();
    await waitFor(() => h.adapter.textsIn(thread).includes('second done'));
    expect(h.adapter.textsIn(thread).slice(1)).toEqual(['first done', 'second done']);
    expect(lastUserMessage(h.model.requests[1]!)).toBe('second request');
  });

  it('loses no message that arrives while a run is finishing (posting its last answer)', async () => {
    h = await startHarness(await stores.env(kind));
    const thread = h.adapter.thread();
    h.model.reply({ text: 'answer one' }, { text: 'answer two' });
    const posting = gate();
    h.adapter.postGate = posting.promise;
    await h.adapter.say(thread, 'one');
    await waitFor(() => h.model.requests.length === 1);
    await new Promise((r) => setTimeout(r, 20));
    const second = h.adapter.say(thread, 'two');
    h.adapter.postGate = null;
    posting.open();
    await second;
    await waitFor(() => h.adapter.textsIn(thread).includes('answer two'));
    await h.app.coordinator.idle();
    const conv = await h.app.conversations.ensure(thread);
    expect((await h.app.tasks.list(conv)).map((t) => t.status)).toEqual(['completed', 'completed']);
  });

  it('runs a task added by the model serially after the current run', async () => {
    h = await startHarness(await stores.env(kind));
    h.model.reply(
      {
        toolCalls: [
          { name: 'add_task', arguments: { title: 'Write the summary', description: 'Summarise the findings' } },
          { name: 'task_complete', arguments: { summary: 'planned' } },
        ],
      },
      { text: 'Here is the summary.' },
    );
    const thread = h.adapter.thread();
    await h.adapter.say(thread, 'research and then summarise');
    await waitFor(() => h.adapter.textsIn(thread).includes('Here is the summary.'));
    await h.app.coordinator.idle();
    expect(h.model.requests).toHaveLength(2);
    expect(lastUserMessage(h.model.requests[1]!)).toBe('[To-do #2] Write the summary\n\nSummarise the findings');
    const conv = await h.app.conversations.ensure(thread);
    expect((await h.app.tasks.list(conv)).map((t) => [t.id, t.status, t.createdBy])).toEqual([
      [1, 'completed', 'user'],
      [2, 'completed', 'agent'],
    ]);
  });

  it('keeps blocked tasks waiting until their blockers complete', async () => {
    h = await startHarness(await stores.env(kind));
    h.model.reply({
      toolCalls: [
        { name: 'add_task', arguments: { title: 'deploy' } },
        { name: 'add_task', arguments: { title: 'build' } },
        { name: 'update_task', arguments: { task_id: 2, add_blocked_by: [3] } },
        { name: 'update_task', arguments: { task_id: 3, add_blocked_by: [2] } },
        { name: 'task_complete', arguments: { summary: 'planned' } },
      ],
    });
    const thread = h.adapter.thread();
    await h.adapter.say(thread, 'build then deploy');
    await waitFor(() => h.model.requests.length === 3);
    await h.app.coordinator.idle();
    const cycle = h.model.requests[1]!.messages.filter((m) => m.role === 'tool').map(
      (m) => toolResultJson(m.content) as { ok: boolean; error?: string },
    );
    expect(cycle[3]!.error).toMatch(/cycle/);
    expect(lastUserMessage(h.model.requests[1]!)).toBe('[To-do #3] build');
    expect(lastUserMessage(h.model.requests[2]!)).toBe('[To-do #2] deploy');
  });

  it('runs different conversations in parallel up to MAX_CONCURRENT_RUNS', async () => {
    h = await startHarness({ ...(await stores.env(kind)), MAX_CONCURRENT_RUNS: '2' });
    const g = gate();
    h.model.respondWith(() => ({ text: 'done', gate: g.promise }));
    const threads = ['T1', 'T2', 'T3'].map((t) => h.adapter.thread('C1', t));
    for (const t of threads) await h.adapter.say(t, 'work');
    await waitFor(() => h.model.requests.length === 2);
    // The third gets no third slot; a wait shorter than the note's delay is not worth a note...
    h.clock.advance(BUSY_ELSEWHERE_NOTE_DELAY_MS - 1);
    await h.app.outbox.idle();
    expect(h.adapter.textsIn(threads[2]!)).toEqual([]);
    // ...a longer one is (a note through the outbox).
    h.clock.advance(1);
    await waitFor(() => h.adapter.textsIn(threads[2]!).length > 0, 10_000, "the third conversation's note");
    expect(h.model.requests).toHaveLength(2);
    expect(h.adapter.textsIn(threads[2]!)).toEqual([
      expect.stringMatching(/Queued as task #\d+\. I'm busy in other conversations/),
    ]);
    g.open();
    await waitFor(() => threads.every((t) => h.adapter.textsIn(t).includes('done')));
    expect(h.model.requests).toHaveLength(3);
  });

  it('a busy-elsewhere note still waiting at shutdown is dropped with it, not fired on a closed store', async () => {
    h = await startHarness({ ...(await stores.env(kind)), MAX_CONCURRENT_RUNS: '1' });
    const g = gate();
    h.model.respondWith(() => ({ text: 'done', gate: g.promise }));
    const threads = ['T1', 'T2'].map((t) => h.adapter.thread('C1', t));
    for (const t of threads) await h.adapter.say(t, 'work');
    await waitFor(() => h.model.requests.length === 1);
    await waitFor(() => h.clock.pendingTimers() > 0, 5000, 'the note to be armed');
    g.open();
    await h.app.stop();
    expect(h.clock.pendingTimers()).toBe(0);
  });

  it('says nothing about being busy elsewhere when a slot frees before the note is due', async () => {
    h = await startHarness({ ...(await stores.env(kind)), MAX_CONCURRENT_RUNS: '2' });
    const g = gate();
    h.model.respondWith(() => ({ text: 'done', gate: g.promise }));
    const threads = ['T1', 'T2', 'T3'].map((t) => h.adapter.thread('C1', t));
    for (const t of threads) await h.adapter.say(t, 'work');
    await waitFor(() => h.model.requests.length === 2);
    g.open();
    await waitFor(() => threads.every((t) => h.adapter.textsIn(t).includes('done')));
    await h.app.coordinator.idle();
    const reads = vi.spyOn(h.app.tasks, 'get');
    h.clock.advance(BUSY_ELSEWHERE_NOTE_DELAY_MS * 2);
    await h.app.outbox.idle();
    expect(h.model.requests).toHaveLength(3);
    expect(h.adapter.textsIn(threads[2]!)).toEqual(['done']);
    // The note was dropped when its task started here: nothing read the task back to decide.
    expect(reads).not.toHaveBeenCalled();
  });

  it('opens a thread when the adapter asks, and the conversation is that thread', async () => {
    h = await startHarness(await stores.env(kind));
    const channel = h.adapter.thread('C9', null);
    const id = await h.adapter.say(channel, 'start a thread', { startThread: true });
    await waitFor(() => h.adapter.textsIn({ ...channel, thread: id }).includes('ok'));
    expect(h.adapter.textsIn(channel)).toEqual([]);
  });

  it('shows a working status while a run is active and clears it after', async () => {
    h = await startHarness(await stores.env(kind));
    const g = gate();
    h.model.reply({ text: 'done', gate: g.promise });
    const thread = h.adapter.thread();
    const msgId = await h.adapter.say(thread, 'work');
    await waitFor(() => h.adapter.working.size === 1);
    const status = [...h.adapter.working.values()][0]!;
    expect(status.sourceMessageId).toBe(msgId);
    expect(status.stopActionId).toBe(`errand:stop:${status.runId}`);
    g.open();
    await waitFor(() => h.adapter.working.size === 0);
  });
});
