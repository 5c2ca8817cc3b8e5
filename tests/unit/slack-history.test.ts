import { webApi } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { createSlackHistory, slackTsToIso } from '../../adapters/slack/slack-history.js';
import { fromConversationRef } from '../../adapters/slack/slack-thread-id.js';
import type { ConversationRef } from '../../src/chat/conversation-ref.js';

const BOT = { userId: 'U0BOT001', botId: 'B0BOT001' };
const thread: ConversationRef = {
  platform: 'slack',
  workspace: 'T0FAKE01',
  channel: 'C0GENERAL',
  thread: '1700000000.000100',
};
const dm: ConversationRef = { platform: 'slack', workspace: 'T0FAKE01', channel: 'D0ALICE01', thread: null };

type Call = { method: string; args: Record<string, unknown> };

/** A history over scripted Web API answers, recording every call and every wait. */
function historyOver(answers: unknown[], names: Record<string, string> = {}) {
  const calls: Call[] = [];
  const waits: number[] = [];
  const history = createSlackHistory({
    call: async (method, args) => {
      calls.push({ method, args });
      const next = answers.shift();
      if (next instanceof Error) throw next;
      return { ok: true, ...(next as object) };
    },
    bot: () => BOT,
    userName: async (id) => {
      if (!(id in names)) throw new Error('user_not_found');
      return names[id]!;
    },
    locate: (ref) => fromConversationRef(ref)!,
    pageSize: 2,
    sleep: async (ms) => void waits.push(ms),
  });
  return { history, calls, waits };
}

const msg = (ts: string, fields: Record<string, unknown> = {}) => ({
  type: 'message',
  ts,
  user: 'U0ALICE01',
  text: `text ${ts}`,
  ...fields,
});

describe('Slack history', () => {
  it('reads a thread page by page from its root, keeping the root Slack repeats on every page once', async () => {
    const root = msg('1700000000.000100', { thread_ts: '1700000000.000100', reply_count: 3 });
    const { history, calls } = historyOver(
      [
        {
          messages: [root, msg('1700000001.000000'), msg('1700000002.000000')],
          has_more: true,
          response_metadata: { next_cursor: 'c2' },
        },
        { messages: [root, msg('1700000003.000000')], has_more: false, response_metadata: { next_cursor: '' } },
      ],
      { U0ALICE01: 'Alice' },
    );
    const page = await history.readThread(thread, { limit: 100 });
    expect(page.messages.map((m) => m.id)).toEqual([
      '1700000000.000100',
      '1700000001.000000',
      '1700000002.000000',
      '1700000003.000000',
    ]);
    expect(page.truncated).toBe(false);
    expect(calls.map((c) => [c.method, c.args.ts, c.args.cursor])).toEqual([
      ['conversations.replies', thread.thread, undefined],
      ['conversations.replies', thread.thread, 'c2'],
    ]);
  });

  it('stops at the limit and says the thread holds more', async () => {
    const { history, calls } = historyOver([
      {
        messages: [msg('1700000000.000100'), msg('1700000001.000000')],
        has_more: true,
        response_metadata: { next_cursor: 'c2' },
      },
    ]);
    const page = await history.readThread(thread, { limit: 2 });
    expect(page).toMatchObject({ truncated: true });
    expect(page.messages).toHaveLength(2);
    expect(calls).toHaveLength(1);
  });

  it('reads a thread-less conversation as its newest messages, oldest first', async () => {
    const { history, calls } = historyOver([
      {
        messages: [msg('1700000009.000000'), msg('1700000008.000000')],
        has_more: true,
        response_metadata: { next_cursor: 'c2' },
      },
      { messages: [msg('1700000007.000000')], has_more: true, response_metadata: { next_cursor: 'c3' } },
    ]);
    const page = await history.readThread(dm, { limit: 3 });
    expect(page.messages.map((m) => m.id)).toEqual(['1700000007.000000', '1700000008.000000', '1700000009.000000']);
    expect(page.truncated).toBe(true);
    expect(calls.map((c) => [c.method, c.args.channel, c.args.limit])).toEqual([
      ['conversations.history', 'D0ALICE01', 2],
      ['conversations.history', 'D0ALICE01', 1],
    ]);
  });

  it('asks conversations.history only for messages since the given time, with reply counts', async () => {
    const { history, calls } = historyOver([
      { messages: [msg('1700000005.000000', { thread_ts: '1700000005.000000', reply_count: 4 })], has_more: false },
    ]);
    const page = await history.readChannel(thread, { limit: 10, since: Date.parse('2023-11-14T22:13:20.000Z') });
    expect(calls[0]!.args).toMatchObject({ channel: 'C0GENERAL', oldest: '1700000000.000000', inclusive: true });
    expect(page.messages[0]).toMatchObject({ replyCount: 4, time: '2023-11-14T22:13:25.000Z' });
  });

  it('waits out a 429 for its Retry-After and asks again', async () => {
    const { history, calls, waits } = historyOver([
      new webApi.WebAPIRateLimitedError(3),
      { messages: [msg('1700000000.000100')] },
    ]);
    const page = await history.readThread(thread, { limit: 10 });
    expect(waits).toEqual([3000]);
    expect(calls).toHaveLength(2);
    expect(page.messages).toHaveLength(1);
  });

  it("names people by display name, bots by their app's name, marks the bot's own messages, and turns mentions into @names", async () => {
    const { history } = historyOver(
      [
        {
          messages: [
            msg('1700000000.000100', { text: '<@U0BOT001> ask <@U0BOB0001>' }),
            msg('1700000001.000000', {
              user: BOT.userId,
              bot_id: BOT.botId,
              bot_profile: { name: 'errand' },
              text: 'On it.',
            }),
            msg('1700000002.000000', {
              user: 'U0OTHERBOT',
              bot_id: 'B0OTHER01',
              bot_profile: { name: 'ci' },
              text: 'red',
            }),
            msg('1700000003.000000', { user: 'U0GONE001', text: 'hi', files: [{ name: 'log.txt' }] }),
          ],
        },
      ],
      { U0ALICE01: 'Alice', U0BOB0001: 'Bob', U0BOT001: 'Errand' },
    );
    const { messages } = await history.readThread(thread, { limit: 10 });
    expect(messages.map((m) => [m.author.name, m.author.isBot, m.author.isSelf, m.text])).toEqual([
      ['Alice', false, false, '@Errand ask @Bob'],
      ['errand', true, true, 'On it.'],
      ['ci', true, false, 'red'],
      ['U0GONE001', false, false, 'hi\n[file: log.txt]'],
    ]);
  });

  it("turns Slack's ts into an ISO time", () => {
    expect(slackTsToIso('1700000000.123456')).toBe('2023-11-14T22:13:20.123Z');
  });
});
