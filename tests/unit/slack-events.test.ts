import { describe, expect, it } from 'vitest';
import { cleanText, toInboundMessage, type EventContext } from '../../adapters/slack/event-handlers.js';
import { toEditBody, toMessageBodies } from '../../adapters/slack/message-bodies.js';
import { toInboundAction } from '../../adapters/slack/actions.js';
import { commandNameOf } from '../../adapters/slack/slash-commands.js';

const BOT = { userId: 'U0BOT', botId: 'B0BOT' };
const threads = new Set<string>();
const ctx: EventContext = {
  teamId: 'T0TEAM',
  bot: BOT,
  botThreads: { mark: (c, t) => void threads.add(`${c}/${t}`), includesBot: async (c, t) => threads.has(`${c}/${t}`) },
};
const base = { channel: 'C0CHAN', channel_type: 'channel', user: 'U0ALICE', ts: '1700000001.000001' };

describe('Slack message events → InboundMessage', () => {
  it('accepts mentions and both twins alike; strips the mention', async () => {
    const mention = await toInboundMessage({ ...base, type: 'app_mention', text: '<@U0BOT> hi' }, ctx);
    const twin = await toInboundMessage({ ...base, type: 'message', text: '<@U0BOT> hi' }, ctx);
    expect(mention).toEqual(twin);
    expect(mention).toMatchObject({ messageId: base.ts, text: 'hi', conversation: { thread: base.ts } });
  });

  it.each([
    ['a bot post', { bot_id: 'B0OTHER', text: '<@U0BOT> hi' }],
    ['its own post', { user: 'U0BOT', text: '<@U0BOT> hi' }],
    ['an edit', { subtype: 'message_changed', user: undefined, text: '' }],
    ['a deletion', { subtype: 'message_deleted', user: undefined }],
    ['a bot_message', { subtype: 'bot_message', text: '<@U0BOT> hi' }],
    ['a channel join', { subtype: 'channel_join', text: '<@U0BOT> joined' }],
    ['top-level chatter', { text: 'no mention' }],
    ['a reply in a foreign thread', { text: 'hi', thread_ts: '1700000000.000009' }],
    ['a malformed event', { ts: undefined, text: '<@U0BOT> hi' }],
  ])('ignores %s', async (_name, patch) => {
    expect(await toInboundMessage({ ...base, type: 'message', ...patch }, ctx)).toBeNull();
  });

  it('accepts thread replies where the bot is, and DMs', async () => {
    threads.add('C0CHAN/1700000000.000005');
    expect(
      await toInboundMessage({ ...base, type: 'message', text: 'more', thread_ts: '1700000000.000005' }, ctx),
    ).toMatchObject({ conversation: { thread: '1700000000.000005' } });
    expect(
      await toInboundMessage({ ...base, type: 'message', channel: 'D0DM', channel_type: 'im', text: 'psst' }, ctx),
    ).toMatchObject({ conversation: { channel: 'D0DM', thread: null } });
  });

  it('decodes Slack entities and labelled mentions', () => {
    expect(cleanText('<@U0BOT|errand>  a &lt;b&gt; &amp;amp;', 'U0BOT')).toBe('a <b> &amp;');
  });
});

describe('Slack outbound bodies, clicks and command names', () => {
  it('puts buttons on the last piece only and keeps long labels whole in the value', () => {
    const label = 'x'.repeat(100);
    const bodies = toMessageBodies({
      text: 'para one\n\n'.repeat(400),
      buttons: [{ actionId: 'errand:answer:r:0', label }],
    });
    expect(bodies.length).toBeGreaterThan(1);
    expect(bodies.slice(0, -1).every((b) => b.blocks === undefined)).toBe(true);
    const actions = bodies.at(-1)!.blocks!.find((b) => b.type === 'actions');
    expect(actions).toMatchObject({ elements: [{ value: label, text: { text: `${'x'.repeat(74)}…` } }] });
  });

  it('an edit without buttons clears the old ones', () => {
    expect(toEditBody({ text: 'done' })).toEqual({ text: 'done', blocks: [] });
  });

  it('decodes clicks on Errand buttons only', () => {
    const body = {
      type: 'block_actions',
      user: { id: 'U0ALICE' },
      team: { id: 'T0TEAM' },
      channel: { id: 'C0CHAN' },
      message: { ts: '1700000002.000001', thread_ts: '1700000001.000001' },
      actions: [{ action_id: 'errand:answer:run1:1', value: 'Blue', action_ts: '1.2' }],
    };
    expect(toInboundAction(body, null)).toMatchObject({
      kind: 'answer',
      runId: 'run1',
      answer: 'Blue',
      conversation: { thread: '1700000001.000001' },
    });
    expect(toInboundAction({ ...body, actions: [{ action_id: 'other:thing' }] }, null)).toBeNull();
  });

  it('recognises command names with or without the errand prefix', () => {
    expect(['/tasks', '/errand-stop', '/errand_help', '/schedules', '/other'].map(commandNameOf)).toEqual([
      'tasks',
      'stop',
      'help',
      'schedules',
      null,
    ]);
  });
});
