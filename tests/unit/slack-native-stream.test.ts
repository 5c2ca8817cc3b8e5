import { WebAPIPlatformError } from '@slack/web-api';
import { splitText } from '../../src/chat/split-text.js';
import { describe, expect, it } from 'vitest';
import { createNativeStream } from '../../adapters/slack/native-stream.js';
import { createEditedStream } from '../../src/chat/edited-stream.js';
import { silentLogger } from '../../src/logger.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { waitFor } from '../fakes/wait-for.js';

/** A Slack stream over a recorded `call`, with preview records that note when they were made. */
function stream(refusing: string | null = null, startAnswered: Promise<void> = Promise.resolve()) {
  const clock = new FakeClock();
  const events: string[] = [];
  const refused = new Set<string>();
  const s = createNativeStream({
    channelId: 'C0GENERAL1',
    threadTs: '1700000000.000100',
    recipient: { teamId: 'T0TEAM0001', userId: 'U0ALICE01' },
    call: async (method, args) => {
      if (args.chunks && refusing) throw new WebAPIPlatformError({ ok: false, error: refusing });
      const cards = ((args.chunks ?? []) as { type: string; title?: string; status?: string; text?: string }[]).map(
        (c) => (c.type === 'task_update' ? `[${c.title}: ${c.status}]` : c.text),
      );
      events.push(`${method} ${[...cards, String(args.markdown_text ?? '')].join(' ')}`.trimEnd());
      if (method === 'chat.startStream') await startAnswered;
      return method === 'chat.startStream' ? { ts: '1700000001.000100' } : {};
    },
    remove: async (ts) => void events.push(`chat.delete ${ts}`),
    beforeMessage: async () => {
      events.push('record');
      return { key: 'e7', posted: async (id) => void events.push(`recorded ${id}`) };
    },
    fallback: () =>
      createEditedStream({
        post: async () => 'x',
        edit: async () => {},
        remove: async () => {},
        render: (text) => splitText(text, 1000),
        intervalMs: 1000,
        clock,
        logger: silentLogger(),
      }),
    steps: { mode: 'timeline', refused: () => refused.has('T0TEAM0001'), refuse: () => void refused.add('T0TEAM0001') },
    intervalMs: 1000,
    clock,
    logger: silentLogger(),
  });
  return { s, clock, events, refused };
}

describe('the Slack native stream', () => {
  it('records the streamed message before chat.startStream leaves, and its ts once Slack answered', async () => {
    const { s, events } = stream();
    s.append('Hello');
    await waitFor(() => events.includes('recorded 1700000001.000100'));
    expect(events).toEqual(['record', 'chat.startStream Hello', 'recorded 1700000001.000100']);
  });

  it('ends the answer at once: the text not sent yet goes with chat.stopStream, without waiting for the append pacing', async () => {
    const { s, events, clock } = stream();
    s.append('Hello');
    await waitFor(() => events.includes('recorded 1700000001.000100'));
    s.append(' world');
    const startedAt = clock.now();
    expect(await s.finish('Hello world', ['Hello world'])).toEqual(['1700000001.000100']);
    expect(clock.now()).toBe(startedAt);
    expect(events.slice(3)).toEqual(['chat.stopStream  world']);
  });

  it('ends at once an answer whose rest arrived while chat.startStream was on its way', async () => {
    let answer!: () => void;
    const { s, events, clock } = stream(null, new Promise<void>((resolve) => (answer = resolve)));
    s.append('Hello');
    await waitFor(() => events.includes('chat.startStream Hello'));
    s.append(' world');
    answer();
    const startedAt = clock.now();
    const finished = s.finish('Hello world', ['Hello world']);
    expect(
      await Promise.race([
        finished,
        new Promise((resolve) => setTimeout(resolve, 500, 'still waiting for the append pacing')),
      ]),
    ).toEqual(['1700000001.000100']);
    expect(clock.now()).toBe(startedAt);
    expect(events).toEqual([
      'record',
      'chat.startStream Hello',
      'recorded 1700000001.000100',
      'chat.stopStream  world',
    ]);
  });

  it('sends cards in the paced calls, the answer text under them at once, and closes open cards when stopped', async () => {
    const { s, events, clock } = stream();
    s.showSteps!([{ id: 'c1', title: 'Reading the thread', status: 'running' }]);
    await waitFor(() => events.includes('recorded 1700000001.000100'));
    s.showSteps!([
      { id: 'c1', title: 'Reading the thread', status: 'done' },
      { id: 'c2', title: 'Running x', status: 'running' },
    ]);
    await Promise.resolve();
    expect(events.slice(3)).toEqual([]);
    clock.advance(1000);
    await waitFor(() => events.length === 4);
    expect(events.at(-1)).toBe('chat.appendStream [Reading the thread: complete] [Running x: in_progress]');
    s.append('The answer');
    await waitFor(() => events.length === 5);
    expect(events.at(-1)).toBe('chat.appendStream The answer');
    await s.stop('stopped');
    expect(events.at(-1)).toBe('chat.stopStream [Running x: error]  (stopped)');
  });

  it('a workspace that refuses chunks is remembered; the text streams on without cards', async () => {
    const { s, events, refused } = stream('invalid_chunks');
    s.showSteps!([{ id: 'c1', title: 'Reading the thread', status: 'running' }]);
    s.append('Hello');
    await waitFor(() => events.includes('recorded 1700000001.000100'));
    expect(events).toEqual(['record', 'chat.startStream Hello', 'recorded 1700000001.000100']);
    expect(refused.has('T0TEAM0001')).toBe(true);
    expect(stream().s.showSteps).toBeDefined();
  });
});
