import { describe, expect, it } from 'vitest';
import { createNativeStream } from '../../adapters/slack/native-stream.js';
import { createEditedStream } from '../../src/chat/edited-stream.js';
import { silentLogger } from '../../src/logger.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { waitFor } from '../fakes/wait-for.js';

/** A Slack stream over a recorded `call`, with preview records that note when they were made. */
function stream() {
  const clock = new FakeClock();
  const events: string[] = [];
  const s = createNativeStream({
    channelId: 'C0GENERAL1',
    threadTs: '1700000000.000100',
    recipient: { teamId: 'T0TEAM0001', userId: 'U0ALICE01' },
    call: async (method, args) => {
      events.push(`${method} ${String(args.markdown_text ?? '')}`.trimEnd());
      return method === 'chat.startStream' ? { ts: '1700000001.000100' } : {};
    },
    remove: async (ts) => void events.push(`chat.delete ${ts}`),
    beforeMessage: async () => {
      events.push('record');
      return { key: 'e7', posted: async (id) => void events.push(`recorded ${id}`) };
    },
    fallback: () => createEditedStream({ post: async () => 'x', edit: async () => {}, remove: async () => {}, pieceLimit: 1000, intervalMs: 1000, clock, logger: silentLogger() }),
    intervalMs: 1000,
    clock,
    logger: silentLogger(),
  });
  return { s, clock, events };
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
});
