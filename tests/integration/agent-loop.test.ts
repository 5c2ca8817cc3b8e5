import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isSummaryRequest, stepRequests } from '../support/summary-requests.js';
import { waitFor } from '../fakes/wait-for.js';
import { startHarness, type Harness } from './harness.js';
import { toolResultJson } from '../support/tool-result-json.js';

let h: Harness;
afterEach(async () => h.close());

describe('agent loop', () => {
  beforeEach(async () => {
    h = await startHarness({ MAX_STEPS: '4' });
  });

  it('answers a plain question in the thread with one model call', async () => {
    h.model.reply({ text: 'Paris.' });
    const thread = h.adapter.thread();
    await h.adapter.say(thread, 'What is the capital of France?');
    await waitFor(() => h.adapter.textsIn(thread).includes('Paris.'));
    await h.app.coordinator.idle();
    expect(h.model.requests).toHaveLength(1);
    const req = h.model.requests[0]!;
    expect(req.messages[0]!.role).toBe('system');
    expect(req.messages.at(-1)).toMatchObject({ role: 'user', content: 'What is the capital of France?' });
    expect(req.tools.map((t) => t.function.name)).toEqual(
      expect.arrayContaining([
        'send_update',
        'ask_user',
        'task_complete',
        'add_task',
        'list_tasks',
        'update_task',
        'complete_task',
        'fail_task',
        'delete_task',
      ]),
    );
    const [task] = await h.app.tasks.list(await h.app.conversations.ensure(thread));
    expect(task).toMatchObject({ status: 'completed', resultSummary: 'Paris.', createdBy: 'user', requestedBy: 'U1' });
  });

  it('posts each message of a multi-step run in order and ends on task_complete', async () => {
    h.model.reply(
      { text: 'Looking into it.', toolCalls: [{ name: 'send_update', arguments: { text: 'Step 1 of 2 done.' } }] },
      { text: 'Nearly there.', toolCalls: [{ name: 'task_complete', arguments: { summary: 'All done.' } }] },
    );
    const thread = h.adapter.thread();
    await h.adapter.say(thread, 'Do the two-step thing');
    await waitFor(
      async () =>
        (await h.app.runs.active(await h.app.conversations.ensure(thread))) === null && h.model.requests.length === 2,
    );
    await h.app.coordinator.idle();
    expect(h.adapter.textsIn(thread)).toEqual(['Looking into it.', 'Step 1 of 2 done.', 'Nearly there.']);
    const second = h.model.requests[1]!;
    const toolResult = second.messages.find((m) => m.role === 'tool');
    expect(toolResultJson(toolResult?.content)).toEqual({ ok: true, posted: true });
    const [task] = await h.app.tasks.list(await h.app.conversations.ensure(thread));
    expect(task).toMatchObject({ status: 'completed', resultSummary: 'All done.' });
  });

  it('returns bad tool arguments and unknown tools to the model as errors, and goes on', async () => {
    h.model.reply(
      {
        toolCalls: [
          { name: 'add_task', arguments: { title: 5 } },
          { name: 'fly_to_moon', arguments: {} },
          { name: 'add_task', arguments: '{not json' },
        ],
      },
      { text: 'Fixed it.' },
    );
    const thread = h.adapter.thread();
    await h.adapter.say(thread, 'plan something');
    await waitFor(() => h.adapter.textsIn(thread).includes('Fixed it.'));
    const results = h.model.requests[1]!.messages.filter((m) => m.role === 'tool').map(
      (m) => toolResultJson(m.content) as { ok: boolean; error: string },
    );
    expect(results).toHaveLength(3);
    expect(results[0]).toMatchObject({ ok: false });
    expect(results[0]!.error).toMatch(/Invalid arguments for add_task: title/);
    expect(results[1]!.error).toMatch(/Unknown tool "fly_to_moon"/);
    expect(results[2]!.error).toMatch(/not valid JSON/);
  });

  it('stops at MAX_STEPS and says so in the thread', async () => {
    h.model.respondWith(() => ({ toolCalls: [{ name: 'list_tasks', arguments: {} }] }));
    const thread = h.adapter.thread();
    await h.adapter.say(thread, 'loop forever');
    await waitFor(() => h.adapter.textsIn(thread).some((t) => /after 4 steps/.test(t)));
    await h.app.coordinator.idle();
    expect(h.model.requests).toHaveLength(4);
    const conv = await h.app.conversations.ensure(thread);
    expect((await h.app.tasks.list(conv))[0]).toMatchObject({ status: 'failed' });
  });

  it('retries a model 500 and then answers', async () => {
    h.model.reply({ status: 500 }, { status: 503 }, { text: 'Recovered.' });
    const thread = h.adapter.thread();
    await h.adapter.say(thread, 'hello');
    await waitFor(() => h.adapter.textsIn(thread).includes('Recovered.'));
    expect(h.model.requests).toHaveLength(3);
  });

  it('fails the run saying the endpoint refused it, with its status but without operator settings, when the model keeps refusing', async () => {
    h.model.respondWith(() => ({ status: 401, error: 'bad key' }));
    const thread = h.adapter.thread();
    await h.adapter.say(thread, 'hello');
    await waitFor(() =>
      h.adapter.textsIn(thread).some((t) => /the model service refused the request \(HTTP 401: bad key\)/.test(t)),
    );
    expect(h.adapter.textsIn(thread).join('\n')).not.toMatch(/OPENAI_/);
    await h.app.coordinator.idle();
    expect(h.model.requests).toHaveLength(1);
    expect((await h.app.tasks.list(await h.app.conversations.ensure(thread)))[0]).toMatchObject({ status: 'failed' });
  });

  it('re-queues a task whose run failed transiently and retries it later, up to 3 attempts', async () => {
    h.model.respondWith(() => ({ status: 500 }));
    const thread = h.adapter.thread();
    await h.adapter.say(thread, 'flaky');
    await waitFor(() => h.adapter.textsIn(thread).some((t) => /I'll try again in 60 s\.$/.test(t)));
    await h.app.coordinator.idle();
    const conv = await h.app.conversations.ensure(thread);
    expect((await h.app.tasks.list(conv))[0]).toMatchObject({ status: 'pending', attempts: 1 });
    h.model.respondWith(() => ({ text: 'Worked this time.' }));
    h.clock.advance(60_000);
    await waitFor(() => h.adapter.textsIn(thread).includes('Worked this time.'));
    await h.app.coordinator.idle();
    expect((await h.app.tasks.list(conv))[0]).toMatchObject({ status: 'completed', attempts: 2 });
  });

  it('keeps the model context within the token budget, oldest turns first, tool calls with their results', async () => {
    await h.close();
    h = await startHarness({ CONTEXT_TOKEN_BUDGET: '600' });
    const thread = h.adapter.thread();
    h.model.respondWith((req) =>
      isSummaryRequest(req)
        ? { text: 'Earlier questions were answered.' }
        : { text: `answer ${stepRequests(h.model).length - 1} ${'x'.repeat(400)}` },
    );
    for (let i = 0; i < 8; i++) {
      await h.adapter.say(thread, `question ${i} ${'y'.repeat(400)}`);
      await waitFor(
        async () =>
          stepRequests(h.model).length === i + 1 &&
          (await h.app.runs.active(await h.app.conversations.ensure(thread))) === null,
      );
      await h.app.coordinator.idle();
    }
    const last = stepRequests(h.model).at(-1)!;
    const contents = last.messages.map((m) => String(m.content ?? ''));
    expect(contents.some((c) => c.startsWith('question 7'))).toBe(true);
    expect(contents.some((c) => c.startsWith('question 0'))).toBe(false);
    expect(last.messages[1]!.role).toBe('user');
  });
});
