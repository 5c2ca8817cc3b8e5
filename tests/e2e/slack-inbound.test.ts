import { afterEach, describe, expect, it } from 'vitest';
import { RecordingSink } from '../contract/chat-adapter-contract.js';
import { httpPost, signSlackRequest } from '../fakes/fake-slack.js';
import { waitFor } from '../fakes/wait-for.js';
import { startSlackAdapter, type SlackHarness } from './slack-harness.js';

const CHANNEL = 'C0GENERAL';
const ALICE = 'U0ALICE01';

describe('Slack adapter inbound (real Bolt, HTTP receiver, fake Slack)', () => {
  let h: SlackHarness | null = null;
  let extra: SlackHarness | null = null;
  afterEach(async () => {
    await extra?.close();
    await h?.close();
    h = extra = null;
  });

  /** Sends a DM as a marker and waits for it, so every event delivered before it has been handled. */
  async function flush(sink: RecordingSink, harness: SlackHarness): Promise<void> {
    const marker = `marker ${Math.random()}`;
    await harness.fake.userMessage({ user: ALICE, channel: 'D0MARKER1', text: marker });
    await waitFor(() => sink.messages.some((m) => m.text === marker));
    sink.messages.splice(
      sink.messages.findIndex((m) => m.text === marker),
      1,
    );
  }

  it('maps a channel mention to the thread rooted at it; both twins carry one message id', async () => {
    const sink = new RecordingSink();
    h = await startSlackAdapter(sink);
    const { ts, deliveries } = await h.fake.mention({
      user: ALICE,
      channel: CHANNEL,
      text: 'summarise  the notes &amp; todos',
    });
    expect(deliveries.map((d) => d.status)).toEqual([200, 200]);
    await waitFor(() => sink.messages.length >= 1);
    await flush(sink, h);
    expect(sink.messages).toEqual([
      {
        messageId: ts,
        conversation: { platform: 'slack', workspace: h.fake.teamId, channel: CHANNEL, thread: ts },
        userId: ALICE,
        text: 'summarise the notes & todos',
      },
    ]);
  });

  it('handles twins in either order and concurrently, once each', async () => {
    const sink = new RecordingSink();
    h = await startSlackAdapter(sink);
    const a = await h.fake.mention({ user: ALICE, channel: CHANNEL, text: 'first', order: 'message-first' });
    const b = await h.fake.mention({ user: ALICE, channel: CHANNEL, text: 'second', order: 'together' });
    await flush(sink, h);
    expect(sink.messages.map((m) => [m.messageId, m.text])).toEqual([
      [a.ts, 'first'],
      [b.ts, 'second'],
    ]);
  });

  it("drops Slack's redelivery of an event it already handed over", async () => {
    const sink = new RecordingSink();
    h = await startSlackAdapter(sink);
    const { ts } = await h.fake.mention({ user: ALICE, channel: CHANNEL, text: 'once please' });
    const original = h.fake.deliveries.at(-1)!.event;
    const retry = await h.fake.sendEvent(original, { retryNum: 1 });
    expect(retry.status).toBe(200);
    await flush(sink, h);
    expect(sink.messages.filter((m) => m.messageId === ts)).toHaveLength(1);
  });

  it('a mention inside a thread belongs to that thread, and later replies there need no mention', async () => {
    const sink = new RecordingSink();
    h = await startSlackAdapter(sink);
    const root = await h.fake.userMessage({ user: ALICE, channel: CHANNEL, text: 'talking among people' });
    const inThread = await h.fake.mention({ user: ALICE, channel: CHANNEL, text: 'help here', threadTs: root.ts });
    const followUp = await h.fake.userMessage({
      user: 'U0BOB0001',
      channel: CHANNEL,
      text: 'and also this',
      threadTs: root.ts,
    });
    await flush(sink, h);
    const thread = { platform: 'slack', workspace: h.fake.teamId, channel: CHANNEL, thread: root.ts };
    expect(sink.messages.map((m) => [m.messageId, m.conversation, m.text])).toEqual([
      [inThread.ts, thread, 'help here'],
      [followUp.ts, thread, 'and also this'],
    ]);
  });

  it('ignores top-level chatter and threads the bot is not part of (checked once with conversations.replies)', async () => {
    const sink = new RecordingSink();
    h = await startSlackAdapter(sink);
    const root = await h.fake.userMessage({ user: ALICE, channel: CHANNEL, text: 'people only' });
    await h.fake.userMessage({ user: 'U0BOB0001', channel: CHANNEL, text: 'reply 1', threadTs: root.ts });
    await h.fake.userMessage({ user: 'U0BOB0001', channel: CHANNEL, text: 'reply 2', threadTs: root.ts });
    await waitFor(() => h!.fake.callsOf('conversations.replies').length >= 1);
    await flush(sink, h);
    expect(sink.messages).toEqual([]);
    expect(h.fake.callsOf('conversations.replies')).toHaveLength(1);
  });

  it('after a restart, recognises a thread the bot posted in by asking Slack, then remembers it', async () => {
    const sink = new RecordingSink();
    h = await startSlackAdapter(sink);
    const { ts } = await h.fake.mention({ user: ALICE, channel: CHANNEL, text: 'start' });
    await h.adapter.postMessage(
      { platform: 'slack', workspace: h.fake.teamId, channel: CHANNEL, thread: ts },
      { text: 'on it' },
    );
    await h.adapter.stop();

    const sink2 = new RecordingSink();
    extra = await startSlackAdapter(sink2, { existingFake: h.fake });
    const r1 = await h.fake.userMessage({
      user: ALICE,
      channel: CHANNEL,
      text: 'follow-up after restart',
      threadTs: ts,
    });
    const r2 = await h.fake.userMessage({ user: ALICE, channel: CHANNEL, text: 'and another', threadTs: ts });
    await flush(sink2, extra);
    expect(sink2.messages.map((m) => [m.messageId, m.conversation.thread])).toEqual([
      [r1.ts, ts],
      [r2.ts, ts],
    ]);
    expect(h.fake.callsOf('conversations.replies')).toHaveLength(1);
  });

  it('maps a DM to the DM channel, and a threaded DM reply to its thread', async () => {
    const sink = new RecordingSink();
    h = await startSlackAdapter(sink);
    const dm = await h.fake.userMessage({ user: ALICE, channel: 'D0ALICE01', text: 'hi there' });
    const threaded = await h.fake.userMessage({
      user: ALICE,
      channel: 'D0ALICE01',
      text: 'in a thread',
      threadTs: dm.ts,
    });
    await waitFor(() => sink.messages.length === 2);
    expect(sink.messages.map((m) => m.conversation)).toEqual([
      { platform: 'slack', workspace: h.fake.teamId, channel: 'D0ALICE01', thread: null },
      { platform: 'slack', workspace: h.fake.teamId, channel: 'D0ALICE01', thread: dm.ts },
    ]);
    expect(threaded.delivery.status).toBe(200);
  });

  it("ignores its own posts, their edits and deletions, and other bots' messages", async () => {
    const sink = new RecordingSink();
    h = await startSlackAdapter(sink);
    const { ts } = await h.fake.mention({ user: ALICE, channel: CHANNEL, text: 'go' });
    await waitFor(() => sink.messages.length === 1);
    const thread = { platform: 'slack', workspace: h.fake.teamId, channel: CHANNEL, thread: ts };
    const posted = await h.adapter.postMessage(thread, { text: `<@${h.fake.botUserId}> talking to myself` });
    await h.adapter.editMessage(thread, posted.id, { text: 'edited' });
    await h.fake.otherBotMessage({ channel: CHANNEL, text: `<@${h.fake.botUserId}> hello bot`, threadTs: ts });
    await h.fake.settle();
    await flush(sink, h);
    expect(sink.messages).toHaveLength(1);
    const echoed = h.fake.deliveries.map((d) => d.event.subtype ?? (d.event.bot_id ? 'bot' : 'person'));
    expect(echoed).toEqual(expect.arrayContaining(['bot', 'message_changed']));
  });

  it('rejects requests with a bad or stale signature (401) and handles nothing', async () => {
    const sink = new RecordingSink();
    h = await startSlackAdapter(sink);
    const body = JSON.stringify({
      type: 'event_callback',
      team_id: h.fake.teamId,
      event: { type: 'message', channel: 'D0ALICE01', user: ALICE, text: 'forged', ts: '1700000000.000100' },
    });
    const url = `http://127.0.0.1:${h.adapter.httpPort()}/slack/events`;
    const forged = await httpPost(url, body, {
      'content-type': 'application/json',
      ...signSlackRequest('wrong-secret', body),
    });
    const stale = await httpPost(url, body, {
      'content-type': 'application/json',
      ...signSlackRequest(h.fake.signingSecret, body, Math.floor(Date.now() / 1000) - 600),
    });
    expect([forged.status, stale.status]).toEqual([401, 401]);
    await flush(sink, h);
    expect(sink.messages).toEqual([]);
  });
});
