import { DiscordAPIError } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { createDiscordHistory } from '../../adapters/discord/discord-history.js';
import { fromConversationRef } from '../../adapters/discord/discord-thread-id.js';
import type { ConversationRef } from '../../src/chat/conversation-ref.js';
import { AdapterError } from '../../src/errors.js';

const BOT = '1300000000000000001';
const GUILD = '1300000000000000002';
const CHANNEL = '1300000000000000003';
const THREAD = '1300000000000000010';
const thread: ConversationRef = { platform: 'discord', workspace: GUILD, channel: CHANNEL, thread: THREAD };
const channel: ConversationRef = { ...thread, thread: null };

const user = (id: string, username: string, extra: Record<string, unknown> = {}) => ({
  id,
  username,
  global_name: null,
  ...extra,
});
const msg = (id: string, fields: Record<string, unknown> = {}) => ({
  id,
  type: 0,
  content: `text ${id}`,
  timestamp: '2025-01-01T10:00:00.000000+00:00',
  author: user('1300000000000000100', 'alice'),
  attachments: [],
  ...fields,
});
const unknownMessage = () =>
  new AdapterError('Discord thread starter lookup failed', {
    cause: new DiscordAPIError({ code: 10008, message: 'Unknown Message' }, 10008, 404, 'GET', '/x', {}),
  });

/** A history over scripted REST answers keyed by `route?query`, recording each GET. */
function historyOver(
  answers: Record<string, unknown>,
  extra: Partial<Parameters<typeof createDiscordHistory>[0]> = {},
) {
  const gets: string[] = [];
  const history = createDiscordHistory({
    ...extra,
    get: async (_what, route, query) => {
      const key = query && query.size > 0 ? `${route}?${query.toString()}` : route;
      gets.push(key);
      const answer = answers[key];
      if (answer instanceof Error) throw answer;
      if (answer === undefined) throw new Error(`unexpected GET ${key}`);
      return answer;
    },
    botId: () => BOT,
    nickname: (_guild, id) => (id === '1300000000000000101' ? 'Bobby' : null),
    locate: (ref) => fromConversationRef(ref)!,
  });
  return { history, gets };
}

describe('Discord history', () => {
  it('reads a thread from its starter message, then the thread from the start; system notices are left out', async () => {
    const { history, gets } = historyOver({
      [`/channels/${CHANNEL}/messages/${THREAD}`]: msg(THREAD, { content: 'starter' }),
      [`/channels/${THREAD}/messages?limit=99&after=0`]: [
        msg('1300000000000000012', { author: user(BOT, 'errand', { bot: true }) }),
        msg('1300000000000000011', { type: 21, content: '' }),
        msg('1300000000000000013', { author: user('1300000000000000101', 'bob', { global_name: 'Bob B' }) }),
      ],
    });
    const page = await history.readThread(thread, { limit: 100 });
    expect(page.messages.map((m) => [m.id, m.author.name, m.author.isSelf])).toEqual([
      [THREAD, 'alice', false],
      ['1300000000000000012', 'errand', true],
      ['1300000000000000013', 'Bobby', false],
    ]);
    expect(page.truncated).toBe(false);
    expect(gets).toHaveLength(2);
  });

  it('reads a thread without a starter message (deleted, or not started from one)', async () => {
    const { history } = historyOver({
      [`/channels/${CHANNEL}/messages/${THREAD}`]: unknownMessage(),
      [`/channels/${THREAD}/messages?limit=2&after=0`]: [msg('1300000000000000012'), msg('1300000000000000011')],
    });
    const page = await history.readThread(thread, { limit: 2 });
    expect(page.messages.map((m) => m.id)).toEqual(['1300000000000000011', '1300000000000000012']);
    expect(page.truncated).toBe(true);
  });

  it('reads a channel newest first with before, stops at since, and gives reply counts and ISO times', async () => {
    const { history, gets } = historyOver({
      [`/channels/${CHANNEL}/messages?limit=100`]: [
        msg('1300000000000000030', {
          timestamp: '2025-01-02T10:00:00.000000+00:00',
          thread: { id: '1300000000000000030', message_count: 7 },
        }),
        msg('1300000000000000029', {
          timestamp: '2025-01-01T10:00:00.000000+00:00',
          attachments: [{ filename: 'plan.pdf' }],
        }),
        msg('1300000000000000028', { timestamp: '2024-12-31T10:00:00.000000+00:00' }),
      ],
    });
    const page = await history.readChannel(channel, { limit: 150, since: Date.parse('2025-01-01T00:00:00Z') });
    expect(page.messages.map((m) => [m.id, m.time, m.replyCount, m.text])).toEqual([
      ['1300000000000000029', '2025-01-01T10:00:00.000Z', 0, 'text 1300000000000000029\n[file: plan.pdf]'],
      ['1300000000000000030', '2025-01-02T10:00:00.000Z', 7, 'text 1300000000000000030'],
    ]);
    expect(page.truncated).toBe(false);
    expect(gets).toEqual([`/channels/${CHANNEL}/messages?limit=100`]);
  });

  it('pages a channel with before until the limit, at most 100 per request', async () => {
    const first = Array.from({ length: 100 }, (_, i) => msg(String(1300000000000000500n - BigInt(i))));
    const { history, gets } = historyOver({
      [`/channels/${CHANNEL}/messages?limit=100`]: first,
      [`/channels/${CHANNEL}/messages?limit=20&before=1300000000000000401`]: [msg('1300000000000000400')],
    });
    const page = await history.readChannel(channel, { limit: 120 });
    expect(page.messages).toHaveLength(101);
    expect(page.messages[0]!.id).toBe('1300000000000000400');
    expect(page.truncated).toBe(false);
    expect(gets).toHaveLength(2);
  });

  it('caught-up messages carry what the live path gives: roles read only for people talking to the bot, files, and direct for a DM', async () => {
    const BOB = '1300000000000000101';
    const asked: string[] = [];
    const downloads: string[] = [];
    const extra = {
      memberRoles: async (guild: string, user: string) => {
        asked.push(`${guild}/${user}`);
        return ['1300000000000000500'];
      },
      downloadFile: async (url: string) => {
        downloads.push(url);
        return new Uint8Array([1]);
      },
    };
    const file = {
      filename: 'notes.md',
      size: 12,
      url: 'https://cdn.example/notes.md?hm=x',
      content_type: 'text/markdown',
    };
    const { history } = historyOver(
      {
        [`/channels/${THREAD}/messages?limit=50&after=1300000000000000020`]: [
          msg('1300000000000000022', { author: user(BOT, 'errand', { bot: true }) }),
          msg('1300000000000000021', { author: user(BOB, 'bob'), content: `<@${BOT}> see file`, attachments: [file] }),
        ],
        [`/channels/1300000000000000040/messages?limit=50&after=1300000000000000020`]: [msg('1300000000000000041')],
      },
      extra,
    );
    const page = await history.readAfter!(thread, { afterId: '1300000000000000020', limit: 50 });
    const [fromBob, fromBot] = page.messages;
    expect(fromBob).toMatchObject({
      id: '1300000000000000021',
      text: 'see file',
      addressedToBot: true,
      roles: ['1300000000000000500'],
    });
    expect(fromBob!.direct).toBeUndefined();
    expect(fromBob!.attachments!.map((a) => [a.name, a.mimeType, a.size])).toEqual([['notes.md', 'text/markdown', 12]]);
    await fromBob!.attachments![0]!.fetch(new AbortController().signal);
    expect(downloads).toEqual([file.url]);
    expect(fromBot).toMatchObject({ addressedToBot: false });
    expect(fromBot!.roles).toBeUndefined();
    expect(asked).toEqual([`${GUILD}/${BOB}`]);

    const dm: ConversationRef = { platform: 'discord', workspace: '@me', channel: '1300000000000000040', thread: null };
    const [inDm] = (await history.readAfter!(dm, { afterId: '1300000000000000020', limit: 50 })).messages;
    expect(inDm).toMatchObject({ addressedToBot: true, direct: true });
    expect(asked).toHaveLength(1);
  });
});
