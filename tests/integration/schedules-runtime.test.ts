import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../fakes/wait-for.js';
import { gate, lastUserMessage, startHarness, type Harness } from './harness.js';
import { useStoreKinds } from '../support/store-kinds.js';
import { toolResultJson } from '../support/tool-result-json.js';

const stores = useStoreKinds();

let h: Harness;
afterEach(async () => h.close());

describe.each(stores.kinds)('scheduled prompts through the runtime (%s)', (kind) => {
  it('a channel-target schedule made by the model posts top-level when due, then runs in the new thread', async () => {
    h = await startHarness(await stores.env(kind));
    const due = new Date(h.clock.now() + 10 * 60_000).toISOString();
    h.model.reply(
      {
        toolCalls: [
          {
            name: 'schedule_prompt',
            arguments: { prompt: 'Post the open tasks summary', kind: 'once', spec: due, timezone: 'UTC' },
          },
        ],
      },
      { text: 'Scheduled.' },
    );
    const thread = h.adapter.thread('C5', 'T5');
    await h.adapter.say(thread, 'in ten minutes, post the open tasks summary');
    await waitFor(() => h.adapter.textsIn(thread).includes('Scheduled.'));
    const result = toolResultJson(h.model.requests[1]!.messages.find((m) => m.role === 'tool')?.content) as {
      ok: boolean;
    };
    expect(result.ok).toBe(true);

    h.model.reply({ text: 'Here is the summary: nothing open.' });
    h.clock.advance(10 * 60_000);
    const channel = h.adapter.thread('C5', null);
    await waitFor(() => h.adapter.textsIn(channel).length === 1);
    const top = h.adapter.posts.find((p) => p.conversation === 'memory:W1:C5:-')!;
    expect(top.text).toMatch(/Scheduled prompt #1:\*\* Post the open tasks summary/);
    const newThread = h.adapter.thread('C5', top.id);
    await waitFor(() => h.adapter.textsIn(newThread).includes('Here is the summary: nothing open.'));
    expect(lastUserMessage(h.model.requests.at(-1)!)).toBe('[Scheduled prompt #1] Post the open tasks summary');
    await h.app.coordinator.idle();
    expect((await h.app.schedules.list({ platform: 'memory', workspace: 'W1', channel: 'C5' }))[0]).toMatchObject({
      status: 'completed',
      runCount: 1,
    });
  });

  it("a stop does not wait for a schedule's channel post that failed for a moment; the post goes out after the next start", async () => {
    h = await startHarness(await stores.env(kind));
    const created = await h.app.schedules.create({
      channel: { platform: 'memory', workspace: 'W1', channel: 'C7' },
      target: 'channel',
      conversationId: null,
      prompt: 'say good morning',
      kind: 'once',
      spec: new Date(h.clock.now() + 60_000).toISOString(),
      timezone: 'UTC',
      createdBy: 'U1',
    });
    expect(created.ok).toBe(true);
    let failed = false;
    const post = h.adapter.postMessage.bind(h.adapter);
    h.adapter.postMessage = async (conversation, message) => {
      if (failed) return post(conversation, message);
      failed = true;
      throw new Error('socket hang up');
    };
    h.clock.advance(60_000);
    await waitFor(() => failed);
    // The fake clock never reaches the retry: without giving up, this stop would wait for it for good.
    let timer: NodeJS.Timeout | undefined;
    const hung = new Promise<string>((resolve) => (timer = setTimeout(() => resolve('hung'), 3000)));
    expect(await Promise.race([h.app.stop().then(() => 'stopped'), hung])).toBe('stopped');
    clearTimeout(timer);
    await h.restart();
    h.clock.advance(1000);
    const channel = h.adapter.thread('C7', null);
    await waitFor(() => h.adapter.textsIn(channel).length > 0);
    expect(h.adapter.textsIn(channel)).toEqual(['⏰ **Scheduled prompt #1:** say good morning']);
  });

  it('a thread-target schedule queues behind a busy run and runs when the conversation is idle', async () => {
    h = await startHarness(await stores.env(kind));
    const thread = h.adapter.thread('C6', 'T6');
    const conv = await h.app.conversations.ensure(thread);
    const created = await h.app.schedules.create({
      channel: { platform: 'memory', workspace: 'W1', channel: 'C6' },
      target: 'thread',
      conversationId: conv,
      prompt: 'check the build',
      kind: 'interval',
      spec: '5',
      timezone: 'UTC',
      createdBy: 'U1',
    });
    expect(created.ok).toBe(true);
    const busy = gate();
    h.model.reply({ text: 'long work done', gate: busy.promise }, { text: 'build is green' });
    await h.adapter.say(thread, 'long work');
    await waitFor(() => h.model.requests.length === 1);
    h.clock.advance(5 * 60_000);
    await waitFor(async () => (await h.app.tasks.list(conv)).some((t) => t.createdBy === 'schedule'));
    expect((await h.app.tasks.list(conv)).find((t) => t.createdBy === 'schedule')).toMatchObject({
      status: 'pending',
      scheduleId: 1,
    });
    expect(h.model.requests).toHaveLength(1);
    busy.open();
    await waitFor(() => h.adapter.textsIn(thread).includes('build is green'));
    expect(h.adapter.textsIn(thread)).toEqual(['long work done', 'build is green']);
  });

  it("/schedules lists and manages this channel's schedules", async () => {
    h = await startHarness(await stores.env(kind));
    const channel = { platform: 'memory', workspace: 'W1', channel: 'C8' };
    await h.app.schedules.create({
      channel,
      target: 'channel',
      conversationId: null,
      prompt: 'standup reminder',
      kind: 'cron',
      spec: '0 9 * * 1-5',
      timezone: 'Europe/Berlin',
      createdBy: 'U1',
    });
    const list = await h.adapter.command('schedules', '', channel, null);
    expect(list.text).toContain('#1');
    expect(list.text).toContain('standup reminder');
    expect((await h.adapter.command('schedules', 'pause 1', channel, null)).text).toMatch(/[Pp]aused/);
    expect((await h.adapter.command('schedules', 'delete 7', channel, null)).text).toMatch(/no schedule #7/);
    expect((await h.adapter.command('help', '', channel, null)).text).toContain('/schedules');
  });
});
