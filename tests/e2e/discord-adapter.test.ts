import { afterEach, describe, expect, it } from 'vitest';
import { answerActionId, stopActionId } from '../../src/chat/action-id.js';
import type { ConversationRef } from '../../src/chat/conversation-ref.js';
import { waitFor } from '../fakes/wait-for.js';
import { makeAdapter, startDiscordHarness, until, type DiscordHarness } from './discord-harness.js';
import { RecordingSink } from '../contract/chat-adapter-contract.js';

let h: DiscordHarness;
afterEach(async () => h?.close());

const quiet = () => new Promise((r) => setTimeout(r, 60));

describe('Discord adapter: inbound mapping', () => {
  it('a mention in a channel asks for a thread; openThread creates it and replies land in it', async () => {
    h = await startDiscordHarness();
    const { fake, sink, adapter } = h;
    const msg = fake.userMessage(fake.general.id, `<@${fake.bot.id}> summarise the release notes please`);
    const inbound = await until(() => sink.messages[0]);
    expect(inbound).toMatchObject({
      messageId: msg.id,
      userId: fake.alice.id,
      text: 'summarise the release notes please',
      conversation: { platform: 'discord', workspace: fake.guildId, channel: fake.general.id, thread: null },
      startThread: { name: 'summarise the release notes please' },
    });
    const thread = await adapter.openThread(
      { platform: 'discord', workspace: fake.guildId, channel: fake.general.id },
      msg.id,
      inbound.startThread!.name,
    );
    expect(thread).toEqual({ platform: 'discord', workspace: fake.guildId, channel: fake.general.id, thread: msg.id });
    expect(fake.callsTo('POST', /\/messages\/\d+\/threads$/)[0]?.body).toMatchObject({
      name: 'summarise the release notes please',
    });
    await adapter.postMessage(thread, { text: 'On it.' });
    expect(fake.botMessagesIn(msg.id).map((m) => m.content)).toEqual(['On it.']);
    expect(fake.botMessagesIn(fake.general.id)).toEqual([]);
  });

  it('opening a thread twice on one message returns the same thread instead of failing', async () => {
    h = await startDiscordHarness();
    const msg = h.fake.userMessage(h.fake.general.id, `<@${h.fake.bot.id}> hi`);
    const channel = { platform: 'discord', workspace: h.fake.guildId, channel: h.fake.general.id };
    const first = await h.adapter.openThread(channel, msg.id, 'one');
    const second = await h.adapter.openThread(channel, msg.id, 'two');
    expect(second).toEqual(first);
    expect(h.fake.calls.filter((c) => c.status === 400).map((c) => (c.body as { name?: string }).name)).toEqual([
      'two',
    ]);
  });

  it('with DISCORD_THREADS=false a mention is answered in the channel itself', async () => {
    h = await startDiscordHarness({ threads: false });
    const { fake, sink, adapter } = h;
    fake.userMessage(fake.general.id, `hey <@${fake.bot.id}>, what time is it?`);
    const inbound = await until(() => sink.messages[0]);
    expect(inbound.startThread).toBeUndefined();
    expect(inbound.text).toBe('hey , what time is it?');
    await adapter.postMessage(inbound.conversation, { text: 'Noon.' });
    expect(fake.botMessagesIn(fake.general.id).map((m) => m.content)).toEqual(['Noon.']);
  });

  it("follow-ups in the bot's thread need no mention; other threads and plain channel talk are ignored", async () => {
    h = await startDiscordHarness();
    const { fake, sink, adapter } = h;
    const msg = fake.userMessage(fake.general.id, `<@${fake.bot.id}> start`);
    await waitFor(() => sink.messages.length === 1);
    const thread = await adapter.openThread(
      { platform: 'discord', workspace: fake.guildId, channel: fake.general.id },
      msg.id,
      'start',
    );
    fake.userMessage(fake.general.id, 'just chatting, no mention');
    const other = fake.userThread(fake.general.id, 'a thread the bot is not in');
    fake.userMessage(other.id, 'talking among humans');
    const followUp = fake.userMessage(msg.id, 'and also the changelog');
    await waitFor(() => sink.messages.length === 2);
    await quiet();
    expect(sink.messages.map((m) => m.text)).toEqual(['start', 'and also the changelog']);
    expect(sink.messages[1]).toMatchObject({ messageId: followUp.id, conversation: thread });
    expect(sink.messages[1]!.startThread).toBeUndefined();
  });

  it("after a restart, a user's thread the bot joined is recognised: looked up once, then cached", async () => {
    h = await startDiscordHarness();
    const { fake } = h;
    const thread = fake.userThread(fake.general.id, 'a human thread');
    fake.userMessage(thread.id, `<@${fake.bot.id}> join us`);
    const asked = await until(() => h.sink.messages[0]);
    await h.adapter.postMessage(asked.conversation, { text: 'Joined.' });
    await h.adapter.stop();
    const sink = new RecordingSink();
    h.adapter = makeAdapter(fake);
    await h.adapter.start(sink);
    fake.userMessage(thread.id, 'still there?');
    fake.userMessage(thread.id, 'hello again');
    const other = fake.userThread(fake.general.id, 'another human thread');
    fake.userMessage(other.id, 'not for the bot');
    fake.userMessage(other.id, 'still not for the bot');
    await waitFor(() => sink.messages.length === 2);
    await quiet();
    expect(sink.messages.map((m) => [m.text, m.conversation.thread])).toEqual([
      ['still there?', thread.id],
      ['hello again', thread.id],
    ]);
    expect(fake.callsTo('GET', new RegExp(`/channels/${thread.id}/thread-members/@me$`))).toHaveLength(1);
    expect(fake.callsTo('GET', new RegExp(`/channels/${other.id}/thread-members/@me$`))).toHaveLength(1);
  });

  it('a DM is its own conversation, answered in the DM channel', async () => {
    h = await startDiscordHarness();
    const { fake, sink, adapter } = h;
    const dm = fake.directMessage('remind me what you can do');
    const inbound = await until(() => sink.messages[0]);
    expect(inbound).toMatchObject({
      messageId: dm.id,
      text: 'remind me what you can do',
      conversation: { platform: 'discord', workspace: '@me', channel: dm.channel_id, thread: null },
    });
    expect(inbound.startThread).toBeUndefined();
    await adapter.postMessage(inbound.conversation, { text: 'Plenty.' });
    expect(fake.botMessagesIn(dm.channel_id).map((m) => m.content)).toEqual(['Plenty.']);
  });

  it("ignores its own echoed posts and other bots' messages, even when they mention it", async () => {
    h = await startDiscordHarness({ threads: false });
    const { fake, sink, adapter } = h;
    const channel: ConversationRef = {
      platform: 'discord',
      workspace: fake.guildId,
      channel: fake.general.id,
      thread: null,
    };
    await adapter.postMessage(channel, { text: `I am the bot <@${fake.bot.id}>` });
    fake.userMessage(fake.general.id, `<@${fake.bot.id}> from another bot`, fake.otherBot);
    fake.userMessage(fake.general.id, `<@${fake.bot.id}> from a person`);
    await waitFor(() => sink.messages.length === 1);
    await quiet();
    expect(sink.messages.map((m) => m.text)).toEqual(['from a person']);
  });

  it('edits of messages (MESSAGE_UPDATE) are not new requests', async () => {
    h = await startDiscordHarness();
    const { fake, sink, adapter } = h;
    const msg = fake.userMessage(fake.general.id, `<@${fake.bot.id}> one`);
    await waitFor(() => sink.messages.length === 1);
    await adapter.openThread({ platform: 'discord', workspace: fake.guildId, channel: fake.general.id }, msg.id, 'one');
    await quiet();
    expect(sink.messages).toHaveLength(1);
  });
});

describe('Discord adapter: outbound', () => {
  it('splits a long reply at 2000 characters with code fences intact, mention first and buttons last', async () => {
    h = await startDiscordHarness({ threads: false });
    const { fake, adapter } = h;
    const channel: ConversationRef = {
      platform: 'discord',
      workspace: fake.guildId,
      channel: fake.general.id,
      thread: null,
    };
    const code = Array.from({ length: 150 }, (_, i) => `const line${i} = ${i};`).join('\n');
    const prose = Array.from({ length: 300 }, (_, i) => `word${i}`).join(' ');
    const buttons = Array.from({ length: 7 }, (_, i) => ({
      actionId: answerActionId('run-9', 'q1', i),
      label: `Option ${i}`,
    }));
    // What the outbox does with an answer: the adapter renders it once, and each piece is posted as one message.
    const pieces = adapter.render(`${prose}\n\n\`\`\`ts\n${code}\n\`\`\`\n\nDone.`, fake.alice.id);
    let posted = { id: '' };
    for (const [i, text] of pieces.entries())
      posted = await adapter.postMessage(channel, {
        text,
        ...(i === 0 ? { mentionUserId: fake.alice.id } : {}),
        ...(i === pieces.length - 1 ? { buttons } : {}),
      });
    const sent = fake.botMessagesIn(fake.general.id);
    expect(sent.length).toBeGreaterThan(2);
    expect(sent.length, 'one message per rendered piece').toBe(pieces.length);
    expect(posted.id).toBe(sent.at(-1)!.id);
    for (const m of sent) {
      expect(m.content.length).toBeLessThanOrEqual(2000);
      expect((m.content.match(/```/g) ?? []).length % 2).toBe(0);
    }
    expect(sent[0]!.content.startsWith(`<@${fake.alice.id}> word0`)).toBe(true);
    expect(sent.at(-1)!.content.endsWith('Done.')).toBe(true);
    const rows = sent.at(-1)!.components as { components: { custom_id: string; label: string }[] }[];
    expect(rows.map((r) => r.components.length)).toEqual([5, 2]);
    expect(rows[1]!.components[1]).toMatchObject({ custom_id: 'errand:answer:run-9:q1:6', label: 'Option 6' });
    expect(sent.slice(0, -1).every((m) => m.components.length === 0)).toBe(true);
    const body = fake.callsTo('POST', /^\/channels\/\d+\/messages$/)[0]!.body as { allowed_mentions: unknown };
    expect(body.allowed_mentions).toEqual({ parse: [], users: [fake.alice.id] });
  });

  it('edits a message, removing omitted buttons', async () => {
    h = await startDiscordHarness({ threads: false });
    const { fake, adapter } = h;
    const channel: ConversationRef = {
      platform: 'discord',
      workspace: fake.guildId,
      channel: fake.general.id,
      thread: null,
    };
    const posted = await adapter.postMessage(channel, {
      text: 'Pick one',
      buttons: [{ actionId: answerActionId('r', 'q1', 0), label: 'A' }],
    });
    await adapter.editMessage(channel, posted.id, { text: 'Picked A' });
    expect(fake.messages.get(posted.id)).toMatchObject({ content: 'Picked A', components: [] });
  });

  it('keeps a burst in order within the per-channel limit: queued, never dropped, never 429', async () => {
    h = await startDiscordHarness({ threads: false });
    const { fake, adapter } = h;
    const channel: ConversationRef = {
      platform: 'discord',
      workspace: fake.guildId,
      channel: fake.general.id,
      thread: null,
    };
    const long = adapter.render(`${'a'.repeat(1990)} ${'b'.repeat(100)}`);
    expect(long).toEqual(['a'.repeat(1990), 'b'.repeat(100)]);
    const texts = Array.from({ length: 12 }, (_, i) => (i === 3 ? long : [`message ${i}`])).flat();
    await Promise.all(texts.map((text) => adapter.postMessage(channel, { text })));
    const contents = fake.botMessagesIn(fake.general.id).map((m) => m.content);
    const expected = texts;
    expect(contents).toEqual(expected);
    expect(fake.stats.rateLimited).toBe(0);
    const times = fake.callsTo('POST', /^\/channels\/\d+\/messages$/).map((c) => c.at);
    for (let i = 5; i < times.length; i++) expect(times[i]! - times[i - 5]!).toBeGreaterThanOrEqual(400);
  });

  it('without the adapter pacing, discord.js follows the rate-limit headers: in order, at most 5 per window', async () => {
    h = await startDiscordHarness({ threads: false, tuning: { messageLimit: { count: 1000, windowMs: 1 } } });
    const { fake, adapter } = h;
    const channel: ConversationRef = {
      platform: 'discord',
      workspace: fake.guildId,
      channel: fake.general.id,
      thread: null,
    };
    await Promise.all(Array.from({ length: 8 }, (_, i) => adapter.postMessage(channel, { text: `m${i}` })));
    expect(fake.botMessagesIn(fake.general.id).map((m) => m.content)).toEqual(
      Array.from({ length: 8 }, (_, i) => `m${i}`),
    );
    const accepted = fake
      .callsTo('POST', /^\/channels\/\d+\/messages$/)
      .filter((c) => c.status === 200)
      .map((c) => c.at);
    expect(accepted[5]! - accepted[0]!).toBeGreaterThanOrEqual(400);
  });

  it('a 429 from Discord is waited out and retried; the order still holds', async () => {
    h = await startDiscordHarness({ threads: false });
    const { fake, adapter } = h;
    const channel: ConversationRef = {
      platform: 'discord',
      workspace: fake.guildId,
      channel: fake.general.id,
      thread: null,
    };
    fake.forceRateLimit(fake.general.id);
    await Promise.all(Array.from({ length: 3 }, (_, i) => adapter.postMessage(channel, { text: `m${i}` })));
    expect(fake.stats.rateLimited).toBe(1);
    expect(fake.botMessagesIn(fake.general.id).map((m) => m.content)).toEqual(['m0', 'm1', 'm2']);
  });

  it('shows typing at once, a Stop notice only when still working, and removes it when done', async () => {
    h = await startDiscordHarness({ threads: false });
    const { fake, adapter } = h;
    const channel: ConversationRef = {
      platform: 'discord',
      workspace: fake.guildId,
      channel: fake.general.id,
      thread: null,
    };
    await adapter.setWorking(channel, { runId: 'quick', stopActionId: stopActionId('quick') });
    await adapter.postMessage(channel, { text: 'fast answer' });
    await adapter.setWorking(channel, null);
    await waitFor(() => fake.callsTo('POST', /\/typing$/).length >= 1);
    await quiet();
    expect(fake.botMessagesIn(fake.general.id).map((m) => m.content)).toEqual(['fast answer']);

    await adapter.setWorking(channel, { runId: 'slow', stopActionId: stopActionId('slow') });
    const notice = await until(() => fake.botMessagesIn(fake.general.id).find((m) => m.content.includes('Working')));
    expect(JSON.stringify(notice.components)).toContain('errand:stop:slow');
    await waitFor(() => fake.callsTo('POST', /\/typing$/).length >= 3);
    await adapter.setWorking(channel, null);
    await waitFor(() => fake.messages.get(notice.id)?.deleted);
    const typingSoFar = fake.callsTo('POST', /\/typing$/).length;
    await quiet();
    expect(fake.callsTo('POST', /\/typing$/).length).toBe(typingSoFar);
  });

  it('rejects conversations of other platforms and malformed ids', async () => {
    h = await startDiscordHarness();
    await expect(
      h.adapter.postMessage({ platform: 'slack', workspace: 'T1', channel: 'C1', thread: null }, { text: 'x' }),
    ).rejects.toMatchObject({ code: 'adapter_failed' });
    await expect(
      h.adapter.postMessage(
        { platform: 'discord', workspace: h.fake.guildId, channel: 'general', thread: null },
        { text: 'x' },
      ),
    ).rejects.toMatchObject({ code: 'adapter_failed' });
  });

  it('a rejected post surfaces as AdapterError carrying Discord error code', async () => {
    h = await startDiscordHarness();
    const err = await h.adapter
      .openThread(
        { platform: 'discord', workspace: h.fake.guildId, channel: h.fake.general.id },
        '123456789',
        'no such message',
      )
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'adapter_failed' });
    expect(String((err as Error).message)).toContain('10008');
    expect(h.adapter.maxMessageLength).toBe(2000);
    expect(Object.keys(h.adapter.capabilities).sort()).toEqual([
      'delete',
      'directMessage',
      'files',
      'history',
      'memberRoles',
      'previewLookup',
      'privateAnswers',
      'privateFiles',
      'stream',
    ]);
  });
});
