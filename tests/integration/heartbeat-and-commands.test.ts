import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../fakes/wait-for.js';
import { gate, startHarness, type Harness } from './harness.js';
import { useStoreKinds } from '../support/store-kinds.js';

const stores = useStoreKinds();

let h: Harness;
afterEach(async () => h.close());

describe.each(stores.kinds)('heartbeat (%s)', (kind) => {
  it('posts nothing and starts nothing when there is nothing to do', async () => {
    h = await startHarness({ ...(await stores.env(kind)), HEARTBEAT_SECONDS: '5' });
    h.clock.advance(60_000);
    expect(await h.app.heartbeat.tick()).toEqual({ expiredQuestions: 0, started: 0, skipped: 'no_ready_tasks' });
    expect(h.adapter.posts).toEqual([]);
    expect(h.model.requests).toEqual([]);
  });

  it('never starts a task beside an active run of the same conversation', async () => {
    h = await startHarness(await stores.env(kind));
    const g = gate();
    h.model.reply({ text: 'first', gate: g.promise }, { text: 'second' });
    const thread = h.adapter.thread();
    await h.adapter.say(thread, 'one');
    await waitFor(() => h.model.requests.length === 1);
    await h.adapter.say(thread, 'two');
    expect((await h.app.heartbeat.tick()).started).toBe(0);
    h.clock.advance(5 * 60_000);
    await new Promise((r) => setTimeout(r, 20));
    expect(h.model.requests).toHaveLength(1);
    g.open();
    await waitFor(() => h.adapter.textsIn(thread).includes('second'));
  });

  it('is the safety net: starts a ready task that nothing else started', async () => {
    h = await startHarness({ ...(await stores.env(kind)), HEARTBEAT_SECONDS: '30' });
    const conv = await h.app.conversations.ensure(h.adapter.thread('C7', 'T7'));
    await h.app.tasks.add({ conversationId: conv, title: 'orphan', description: 'orphan task', createdBy: 'agent' });
    expect(h.model.requests).toHaveLength(0);
    h.clock.advance(30_000);
    await waitFor(() => h.adapter.textsIn(h.adapter.thread('C7', 'T7')).includes('ok'));
  });
});

describe.each(stores.kinds)('commands (%s)', (kind) => {
  it('/tasks lists the active run and the to-do list of the conversation', async () => {
    h = await startHarness(await stores.env(kind));
    const g = gate();
    h.model.reply(
      {
        toolCalls: [
          { name: 'add_task', arguments: { title: 'Second thing' } },
          { name: 'send_update', arguments: { text: 'x' } },
        ],
      },
      { text: 'done', gate: g.promise },
    );
    const thread = h.adapter.thread();
    await h.adapter.say(thread, 'First thing');
    await waitFor(() => h.model.requests.length === 2);
    const reply = await h.adapter.command('tasks', '', { platform: 'memory', workspace: 'W1', channel: 'C1' }, thread);
    expect(reply.text).toContain('▶️ #1 First thing — working (step 2)');
    expect(reply.text).toContain('• #2 Second thing');
    const channelWide = await h.adapter.command(
      'tasks',
      '',
      { platform: 'memory', workspace: 'W1', channel: 'C1' },
      null,
    );
    expect(channelWide.text).toContain('**Thread T1**');
    expect(channelWide.text).toContain('#2 Second thing');
    g.open();
    await h.app.coordinator.idle();
  });

  it('/stop without a thread stops every run of the channel; /stop <id> cancels one task; bad args are explained', async () => {
    h = await startHarness(await stores.env(kind));
    h.model.respondWith(() => ({ hang: true }));
    const a = h.adapter.thread('C1', 'A');
    const b = h.adapter.thread('C1', 'B');
    await h.adapter.say(a, 'job a');
    await h.adapter.say(b, 'job b');
    await h.adapter.say(b, 'job b2');
    await waitFor(() => h.model.hanging() === 2);
    const channel = { platform: 'memory', workspace: 'W1', channel: 'C1' };
    expect((await h.adapter.command('stop', 'soon', channel, null)).text).toMatch(
      /Use `\/stop`, `\/stop all` or `\/stop <task-id>`/,
    );
    expect((await h.adapter.command('stop', '99', channel, null)).text).toMatch(/no task #99 in this channel/);
    expect((await h.adapter.command('stop', '3', channel, null)).text).toBe('Cancelled pending task #3.');
    const reply = await h.adapter.command('stop', '', channel, null);
    expect(reply.text).toBe('Done: stopped 2 runs.');
    await waitFor(() => h.model.requests.every((r) => r.aborted));
    // The stop notice leaves through the outbox once the run is settled: wait for it (a loaded machine is slower).
    await waitFor(() => h.adapter.textsIn(a).some((t) => /Stopped #1/.test(t)), 10_000, 'the stop notice in thread a');
    expect(h.adapter.textsIn(a).at(-1)).toMatch(/Stopped #1/);
    expect((await h.adapter.command('stop', '', channel, null)).text).toBe('Nothing is running here.');
  });

  it('/help explains mentions, stop and the commands', async () => {
    h = await startHarness(await stores.env(kind));
    const reply = await h.adapter.command('help', '', { platform: 'memory', workspace: 'W1', channel: 'C1' }, null);
    expect(reply.text).toContain('/tasks');
    expect(reply.text).toContain('/stop');
    expect(reply.text).toContain('/help');
  });
});
