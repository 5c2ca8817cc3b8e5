import { afterEach, describe, expect, it } from 'vitest';
import { answerActionId, stopActionId } from '../../src/chat/action-id.js';
import type { ConversationRef } from '../../src/chat/conversation-ref.js';
import { RecordingSink } from '../contract/chat-adapter-contract.js';
import { waitFor } from '../fakes/wait-for.js';
import { startSlackAdapter, type SlackHarness } from './slack-harness.js';

const CHANNEL = 'C0GENERAL';
const ALICE = 'U0ALICE01';

describe('Slack adapter outbound (real Bolt, fake Slack)', () => {
  let h: SlackHarness | null = null;
  afterEach(async () => {
    await h?.close();
    h = null;
  });

  async function threadOf(harness: SlackHarness, sink: RecordingSink): Promise<ConversationRef> {
    const before = sink.messages.length;
    await harness.fake.mention({ user: ALICE, channel: CHANNEL, text: 'start' });
    await waitFor(() => sink.messages.length > before);
    return sink.messages.at(-1)!.conversation;
  }

  it('posts Markdown as mrkdwn in the thread, with the mention in front', async () => {
    const sink = new RecordingSink();
    h = await startSlackAdapter(sink);
    const thread = await threadOf(h, sink);
    const posted = await h.adapter.postMessage(thread, {
      text: '# Plan\n**Bold** and *it* with [docs](https://x.test/a) & more\n- one\n- two',
      mentionUserId: ALICE,
    });
    const stored = h.fake.messages(CHANNEL, thread.thread).at(-1)!;
    expect(stored.ts).toBe(posted.id);
    expect(stored.thread_ts).toBe(thread.thread);
    expect(stored.text).toBe(
      `<@${ALICE}> *Plan*\n*Bold* and _it_ with <https://x.test/a|docs> &amp; more\n• one\n• two`,
    );
  });

  it('splits long text below the section limit, keeps code fences whole and the order', async () => {
    const sink = new RecordingSink();
    h = await startSlackAdapter(sink);
    const thread = await threadOf(h, sink);
    const code = Array.from({ length: 300 }, (_, i) => `const line${i} = ${i}; // some code`).join('\n');
    const prose = Array.from({ length: 900 }, (_, i) => `w${i}`).join(' ');
    // What the outbox does with an answer: the adapter renders it once, and each piece is posted as one message.
    const pieces = h.adapter.render(`${prose}\n\n\`\`\`ts\n${code}\n\`\`\`\n\nDone.`);
    let posted = { id: '' };
    for (const text of pieces) posted = await h.adapter.postMessage(thread, { text });
    const texts = h.fake.botTexts(CHANNEL, thread.thread);
    expect(texts.length).toBeGreaterThan(3);
    expect(texts.length, 'one message per rendered piece').toBe(pieces.length);
    for (const t of texts) {
      expect(t.length).toBeLessThanOrEqual(h.adapter.maxMessageLength);
      expect((t.match(/```/g) ?? []).length % 2).toBe(0);
    }
    const joined = texts.join('\n');
    expect(joined.indexOf('w899')).toBeLessThan(joined.indexOf('line0 '));
    expect(joined.indexOf('line299')).toBeLessThan(joined.indexOf('Done.'));
    expect(h.fake.messages(CHANNEL, thread.thread).at(-1)!.ts).toBe(posted.id);
    expect(h.fake.callsOf('chat.postMessage').every((c) => c.error === null)).toBe(true);
  });

  it('turns buttons into Block Kit; a click answers with the full label and marks the question answered', async () => {
    const sink = new RecordingSink();
    h = await startSlackAdapter(sink);
    const thread = await threadOf(h, sink);
    const long = 'Deploy to the production cluster in the eu-west region right after the tests pass';
    const posted = await h.adapter.postMessage(thread, {
      text: 'Which one?',
      mentionUserId: ALICE,
      buttons: [
        { actionId: answerActionId('run-7', 'q1', 0), label: 'Staging' },
        { actionId: answerActionId('run-7', 'q1', 1), label: long },
      ],
    });
    const click = await h.fake.click({
      user: ALICE,
      channel: CHANNEL,
      messageTs: posted.id,
      actionId: answerActionId('run-7', 'q1', 1),
    });
    expect(click.status).toBe(200);
    await waitFor(() => sink.actions.length === 1);
    expect(sink.actions[0]).toMatchObject({
      kind: 'answer',
      runId: 'run-7',
      questionId: 'q1',
      answer: long,
      userId: ALICE,
      conversation: thread,
    });
    await waitFor(() => h!.fake.callsOf('chat.update').length === 1);
    const question = h.fake.messages(CHANNEL, thread.thread).find((m) => m.ts === posted.id)!;
    expect(JSON.stringify(question.blocks)).toContain(`<@${ALICE}> answered`);
    expect(JSON.stringify(question.blocks)).not.toContain('"actions"');
  });

  it('shows a reaction at once and a Working notice with Stop after the delay; Stop reaches the sink; clearing removes both', async () => {
    const sink = new RecordingSink();
    h = await startSlackAdapter(sink);
    const thread = await threadOf(h, sink);
    const source = sink.messages.at(-1)!.messageId;
    await h.adapter.setWorking(thread, {
      runId: 'run-9',
      sourceMessageId: source,
      stopActionId: stopActionId('run-9'),
    });
    await waitFor(() => h!.fake.messages(CHANNEL, thread.thread).find((m) => m.ts === source)!.reactions.size === 1);
    const notice = await waitFor(() =>
      h!.fake.messages(CHANNEL, thread.thread).find((m) => m.text.includes('Working')),
    );
    await h.fake.click({ user: ALICE, channel: CHANNEL, messageTs: notice!.ts, actionId: stopActionId('run-9') });
    await waitFor(() => sink.actions.length === 1);
    expect(sink.actions[0]).toEqual({ kind: 'stop', runId: 'run-9', userId: ALICE, conversation: thread });
    await h.adapter.setWorking(thread, null);
    await waitFor(() => !h!.fake.messages(CHANNEL, thread.thread).some((m) => m.text.includes('Working')));
    await waitFor(() => h!.fake.messages(CHANNEL, thread.thread).find((m) => m.ts === source)!.reactions.size === 0);
  });

  it('a quick run gets no notice, and setWorking never delays the reply', async () => {
    const sink = new RecordingSink();
    h = await startSlackAdapter(sink, { tuning: { workingNoticeDelayMs: 5000 } });
    const thread = await threadOf(h, sink);
    const source = sink.messages.at(-1)!.messageId;
    h.fake.failNext('reactions.add', { error: 'internal_error' });
    const before = h.fake.calls.length;
    await h.adapter.setWorking(thread, { runId: 'r1', sourceMessageId: source, stopActionId: stopActionId('r1') });
    await h.adapter.postMessage(thread, { text: 'quick answer' });
    await h.adapter.setWorking(thread, null);
    await h.adapter.stop();
    expect(
      h.fake.calls
        .slice(before)
        .map((c) => c.method)
        .filter((m) => m === 'chat.postMessage'),
    ).toHaveLength(1);
    expect(h.fake.botTexts(CHANNEL, thread.thread)).toEqual(['quick answer']);
  });

  it('retries a 429 after Retry-After, keeping every message and their order', async () => {
    const sink = new RecordingSink();
    h = await startSlackAdapter(sink);
    const thread = await threadOf(h, sink);
    h.fake.failNext('chat.postMessage', { status: 429, retryAfter: 1 });
    const started = Date.now();
    await Promise.all(['one', 'two', 'three'].map((text) => h!.adapter.postMessage(thread, { text })));
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(h.fake.botTexts(CHANNEL, thread.thread)).toEqual(['one', 'two', 'three']);
    expect(h.fake.callsOf('chat.postMessage').filter((c) => c.status === 429)).toHaveLength(1);
  });

  it("stays within Slack's per-channel rate by itself: a burst is paced, not refused", async () => {
    const sink = new RecordingSink();
    h = await startSlackAdapter(sink, {
      tuning: { messageRate: { burst: 3, perSecond: 1 } },
      fake: { rateLimit: { burst: 4, perSecond: 1 } },
    });
    const thread = await threadOf(h, sink);
    const texts = ['a', 'b', 'c', 'd', 'e'];
    const started = Date.now();
    await Promise.all(texts.map((text) => h!.adapter.postMessage(thread, { text })));
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
    expect(h.fake.botTexts(CHANNEL, thread.thread)).toEqual(texts);
    expect(h.fake.callsOf('chat.postMessage').filter((c) => c.status === 429)).toEqual([]);
  });

  it('opens a thread without an API call and posts a top-level message and then into its thread', async () => {
    const sink = new RecordingSink();
    h = await startSlackAdapter(sink);
    const channel = { platform: 'slack', workspace: h.fake.teamId, channel: CHANNEL };
    const top = await h.adapter.postMessage({ ...channel, thread: null }, { text: '⏰ Daily summary' });
    const calls = h.fake.calls.length;
    const thread = await h.adapter.openThread(channel, top.id, 'Daily summary');
    expect(h.fake.calls.length).toBe(calls);
    expect(thread).toEqual({ ...channel, thread: top.id });
    await h.adapter.postMessage(thread, { text: 'Here it is.' });
    expect(h.fake.botTexts(CHANNEL, top.id)).toEqual(['Here it is.']);
    const reply = await h.fake.userMessage({
      user: ALICE,
      channel: CHANNEL,
      text: 'thanks, more please',
      threadTs: top.id,
    });
    await waitFor(() => sink.messages.some((m) => m.messageId === reply.ts));
    expect(sink.messages.find((m) => m.messageId === reply.ts)!.conversation).toEqual(thread);
  });

  it('posts ephemeral notices and reads a user timezone once', async () => {
    const sink = new RecordingSink();
    h = await startSlackAdapter(sink);
    h.fake.users.set(ALICE, { name: 'alice', tz: 'Europe/Berlin' });
    const thread = await threadOf(h, sink);
    await h.adapter.postEphemeral(thread, ALICE, 'only **you** see this');
    expect(h.fake.ephemerals).toEqual([
      { channel: CHANNEL, user: ALICE, text: 'only *you* see this', thread_ts: thread.thread },
    ]);
    expect(await h.adapter.capabilities.timezone?.fetchUserTimezone(ALICE)).toBe('Europe/Berlin');
    expect(await h.adapter.capabilities.timezone?.fetchUserTimezone(ALICE)).toBe('Europe/Berlin');
    expect(h.fake.callsOf('users.info')).toHaveLength(1);
  });

  it('reports a refused post as an error and rejects refs that are not Slack', async () => {
    const sink = new RecordingSink();
    h = await startSlackAdapter(sink);
    const thread = await threadOf(h, sink);
    h.fake.failNext('chat.postMessage', { error: 'channel_not_found' });
    await expect(h.adapter.postMessage(thread, { text: 'x' })).rejects.toThrow(
      /chat.postMessage failed \(channel_not_found\)/,
    );
    await expect(h.adapter.postMessage({ ...thread, platform: 'discord' }, { text: 'x' })).rejects.toThrow(
      /Not a Slack conversation/,
    );
    await expect(h.adapter.postMessage(thread, { text: '   ' })).rejects.toThrow(/empty/);
  });
});
