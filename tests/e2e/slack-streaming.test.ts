import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../fakes/wait-for.js';
import { PRODUCTION_STREAMING, startErrand, texts, type Errand } from './slack-harness.js';

const CHANNEL = 'C0GENERAL';
const ALICE = 'U0ALICE01';
const ANSWER = Array.from(
  { length: 6 },
  (_, i) => `Point ${i + 1}: streams show the answer while the model writes it.`,
).join('\n');

let e: Errand | null = null;
afterEach(async () => {
  await e?.close();
  e = null;
});

describe('streamed answers on Slack', () => {
  it('streams into the thread with chat.startStream/appendStream/stopStream; the message is the exact answer, once', async () => {
    e = await startErrand({ tuning: PRODUCTION_STREAMING });
    const { slack: s, model } = e;
    // The model writes for over two seconds: long enough for appends between the start and the stop.
    model.streamPace({ chunkChars: 6, chunkDelayMs: 40 });
    model.reply({ text: ANSWER });
    const { ts } = await s.mention({ user: ALICE, channel: CHANNEL, text: 'explain streaming' });
    await waitFor(() => s.callsOf('chat.stopStream').length === 1, 20_000, 'the stream to stop');
    await e.app.coordinator.idle();
    expect(s.callsOf('chat.startStream')[0]!.args).toMatchObject({
      channel: CHANNEL,
      thread_ts: ts,
      recipient_user_id: ALICE,
      recipient_team_id: s.teamId,
    });
    expect(s.callsOf('chat.appendStream').length).toBeGreaterThan(0);
    expect(texts(s, ts)).toEqual([ANSWER]);
    expect(s.callsOf('chat.postMessage').filter((c) => String(c.args.text ?? '').includes('Point 1'))).toEqual([]);
    expect(model.requests[0]).toMatchObject({ stream: true, includeUsage: true });
    expect(
      s.calls.filter((c) => c.error !== null && c.error !== 'already_reacted' && c.error !== 'no_reaction'),
    ).toEqual([]);
  });

  it('when Slack refuses chat.startStream, one post is edited with chat.update at most once a second and ends as the answer', async () => {
    e = await startErrand({ tuning: PRODUCTION_STREAMING });
    const { slack: s, model } = e;
    s.refuseStreaming('not_allowed_token_type');
    model.streamPace({ chunkChars: 4, chunkDelayMs: 25 });
    model.reply({ text: ANSWER });
    const { ts } = await s.mention({ user: ALICE, channel: CHANNEL, text: 'explain streaming' });
    await waitFor(() => texts(s, ts).includes(ANSWER), 30_000, 'the finished answer');
    await e.app.coordinator.idle();
    const answer = s.messages(CHANNEL, ts).find((m) => m.text === ANSWER)!;
    const updates = s.callsOf('chat.update').filter((c) => c.args.ts === answer.ts);
    expect(updates.length).toBeGreaterThan(1);
    const gaps = updates.slice(1).map((u, i) => u.at - updates[i]!.at);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(990);
    expect(texts(s, ts)).toEqual([ANSWER]);
  }, 60_000);

  it('a stream stopped mid-way ends with "(stopped)", the model request is cut, and nothing is edited afterwards', async () => {
    e = await startErrand({ tuning: PRODUCTION_STREAMING });
    const { slack: s, model } = e;
    const long = 'This answer is long and slow to arrive. '.repeat(40);
    model.streamPace({ chunkChars: 3, chunkDelayMs: 30 });
    model.reply({ text: long });
    const { ts } = await s.mention({ user: ALICE, channel: CHANNEL, text: 'write slowly' });
    await waitFor(() => s.callsOf('chat.appendStream').length > 0, 20_000, 'the stream to be under way');
    await s.userMessage({ user: ALICE, channel: CHANNEL, text: 'stop', threadTs: ts });
    await waitFor(() => s.callsOf('chat.stopStream').length === 1, 20_000, 'the stream to stop');
    await waitFor(() => model.requests[0]!.aborted, 10_000, 'the model request to be cut');
    await e.app.coordinator.idle();
    await s.settle();
    const streamed = s.messages(CHANNEL, ts).find((m) => m.text.includes('long and slow'))!;
    expect(streamed.text.endsWith('(stopped)')).toBe(true);
    expect(streamed.text.length).toBeLessThan(long.length);
    const stoppedAt = s.callsOf('chat.stopStream')[0]!.at;
    expect(
      s.calls.filter(
        (c) =>
          c.at > stoppedAt &&
          (c.method === 'chat.appendStream' || (c.method === 'chat.update' && c.args.ts === streamed.ts)),
      ),
    ).toEqual([]);
  });

  it('with STREAMING=false the answer is posted whole, as before', async () => {
    e = await startErrand({ env: { STREAMING: 'false' } });
    const { slack: s, model } = e;
    model.reply({ text: ANSWER });
    const { ts } = await s.mention({ user: ALICE, channel: CHANNEL, text: 'explain streaming' });
    await waitFor(() => texts(s, ts).length > 0, 20_000, 'the answer');
    await e.app.coordinator.idle();
    expect(model.requests[0]!.stream).toBe(false);
    expect(s.callsOf('chat.startStream')).toEqual([]);
    expect(s.callsOf('chat.postMessage').filter((c) => String(c.args.text ?? '').includes('Point 1'))).toHaveLength(1);
  });
});
