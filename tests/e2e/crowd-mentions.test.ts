import { afterEach, describe, expect, it } from 'vitest';
import type { ConversationRef } from '../../src/chat/conversation-ref.js';
import { RecordingSink } from '../contract/chat-adapter-contract.js';
import { waitFor } from '../fakes/wait-for.js';
import { startDiscordHarness, until, type DiscordHarness } from './discord-harness.js';
import { startSlackAdapter, type SlackHarness } from './slack-harness.js';

const CHANNEL = 'C0GENERAL';
const ALICE = 'U0ALICE01';
const CROWD =
  'Heads up <!channel> and <!here|here>, <!everyone>, <!subteam^S0DEVS123|@devs> <!subteam^S0OPS4567>; also @channel, @here and @everyone. Ask <@U0BOB0001>.';

describe('crowd pings never leave the Slack adapter (real Bolt, fake Slack)', () => {
  let h: SlackHarness | null = null;
  afterEach(async () => {
    await h?.close();
    h = null;
  });

  async function threadOf(harness: SlackHarness, sink: RecordingSink): Promise<ConversationRef> {
    await harness.fake.mention({ user: ALICE, channel: CHANNEL, text: 'start' });
    await waitFor(() => sink.messages.length > 0);
    return sink.messages.at(-1)!.conversation;
  }

  function assertInert(text: string): void {
    expect(text).not.toMatch(/<!(channel|here|everyone|subteam)/i);
    expect(text).not.toMatch(/(^|[^\w@])@(channel|here|everyone)\b/);
  }

  it('neutralises special mentions and plain crowd words in posts, buttons messages and edits, keeping person mentions', async () => {
    const sink = new RecordingSink();
    h = await startSlackAdapter(sink);
    const thread = await threadOf(h, sink);
    const posted = await h.adapter.postMessage(thread, { text: CROWD, mentionUserId: ALICE });
    await h.adapter.postMessage(thread, {
      text: `Pick one, <!here>`,
      buttons: [{ actionId: 'errand:x', label: 'Yes' }],
    });
    await h.adapter.editMessage(thread, posted.id, { text: `Edited for <!everyone> and @here` });

    const bodies = [...h.fake.callsOf('chat.postMessage'), ...h.fake.callsOf('chat.update')].map((c) =>
      JSON.stringify(c.args),
    );
    expect(bodies.length).toBeGreaterThanOrEqual(3);
    for (const b of bodies) assertInert(b);
    const first = h.fake.callsOf('chat.postMessage').find((c) => String(c.args.text).includes('Heads up'))!;
    expect(String(first.args.text)).toContain(`<@${ALICE}>`);
    expect(String(first.args.text)).toContain('<@U0BOB0001>');
    expect(String(first.args.text)).toContain('@\u2060devs');
  });
});

describe('crowd pings never leave the Discord adapter (real discord.js, fake Discord)', () => {
  let h: DiscordHarness;
  afterEach(async () => h?.close());

  it('allows only the answered person to be pinged and defuses @everyone/@here text in posts and edits', async () => {
    h = await startDiscordHarness({ threads: false });
    const { fake, sink, adapter } = h;
    fake.userMessage(fake.general.id, `<@${fake.bot.id}> hi`);
    const inbound = await until(() => sink.messages[0]);
    const posted = await adapter.postMessage(inbound.conversation, {
      text: 'Hey @everyone and @here, <@&123456789012345678>',
      mentionUserId: fake.alice.id,
    });
    await adapter.editMessage(inbound.conversation, posted.id, { text: 'Still @everyone' });
    const writes = [
      ...fake.callsTo('POST', /\/channels\/\d+\/messages$/),
      ...fake.callsTo('PATCH', /\/channels\/\d+\/messages\/\d+$/),
    ];
    expect(writes.length).toBe(2);
    for (const w of writes) {
      const body = w.body as { content: string; allowed_mentions: unknown };
      expect(body.allowed_mentions).toEqual({ parse: [], users: expect.any(Array) });
      expect(body.content).not.toMatch(/@(everyone|here)/);
    }
    expect((writes[0]!.body as { allowed_mentions: { users: string[] } }).allowed_mentions.users).toEqual([
      fake.alice.id,
    ]);
  });
});
