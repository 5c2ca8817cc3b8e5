import { Client, Events, GatewayIntentBits, Partials, type Message } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createDiscordAdapter } from '../../adapters/discord/create-discord-adapter.js';
import { RecordingSink } from '../contract/chat-adapter-contract.js';
import { FAKE_DISCORD_TOKEN, startFakeDiscord, type FakeDiscord } from '../fakes/fake-discord.js';
import { waitFor } from '../fakes/wait-for.js';
import { startDiscordHarness, TEST_TUNING, type DiscordHarness } from './discord-harness.js';

let h: DiscordHarness | null = null;
let fake: FakeDiscord | null = null;
afterEach(async () => {
  await h?.close();
  await fake?.close();
  h = null;
  fake = null;
});

describe('Discord gateway', () => {
  it('answers heartbeats, so the connection stays up without reconnecting', async () => {
    // Long enough that an acknowledgement delayed by a busy machine is not taken for a dead connection (discord.js
    // resumes when the last beat is unanswered at the next), short enough for a few beats within the test.
    h = await startDiscordHarness({ fake: { heartbeatIntervalMs: 250 } });
    await waitFor(() => h!.fake.stats.heartbeats >= 3, 5000);
    expect(h.fake.stats).toMatchObject({ identifies: 1, resumes: 0 });
  });

  it('after op 7 RECONNECT the client resumes; a message sent meanwhile arrives once and none is repeated', async () => {
    h = await startDiscordHarness();
    const { fake: f, sink } = h;
    const before = f.userMessage(f.general.id, `<@${f.bot.id}> before the reconnect`);
    await waitFor(() => sink.messages.length === 1);
    const identified = f.stats.identifies;
    f.requestReconnect();
    const during = f.userMessage(f.general.id, `<@${f.bot.id}> while reconnecting`);
    await waitFor(() => f.stats.resumes === 1 && sink.messages.length >= 2);
    const after = f.userMessage(f.general.id, `<@${f.bot.id}> after`);
    await waitFor(() => sink.messages.length >= 3);
    await new Promise((r) => setTimeout(r, 60));
    expect(sink.messages.map((m) => m.messageId)).toEqual([before.id, during.id, after.id]);
    // Resumed, not identified again: the session (and the message sent meanwhile) carried over.
    expect(f.stats.identifies).toBe(identified);
  });

  it('start fails with a clear fix when the Message Content intent is not enabled for the application', async () => {
    fake = await startFakeDiscord({ messageContentEnabled: false });
    const adapter = createDiscordAdapter({ token: FAKE_DISCORD_TOKEN, apiUrl: fake.apiUrl, tuning: TEST_TUNING });
    await expect(adapter.start(new RecordingSink())).rejects.toThrow(/MESSAGE CONTENT INTENT/);
    expect(fake.closeCodes).toEqual([4014]);
  });

  it('start fails with a clear fix when the token is rejected', async () => {
    fake = await startFakeDiscord();
    const adapter = createDiscordAdapter({ token: 'not-the-token', apiUrl: fake.apiUrl, tuning: TEST_TUNING });
    await expect(adapter.start(new RecordingSink())).rejects.toThrow(/DISCORD_TOKEN was rejected/);
  });
});

describe('the fake enforces intents like Discord', () => {
  it('without MessageContent, only mentions and DMs carry content', async () => {
    fake = await startFakeDiscord();
    const client = new Client({
      intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.DirectMessages],
      partials: [Partials.Channel],
      rest: { api: fake.apiUrl, retries: 0 },
    });
    const seen: Message[] = [];
    client.on(Events.MessageCreate, (m) => void seen.push(m));
    try {
      const ready = new Promise((r) => client.once(Events.ClientReady, r));
      await client.login(FAKE_DISCORD_TOKEN);
      await ready;
      fake.userMessage(fake.general.id, 'plain talk');
      fake.userMessage(fake.general.id, `<@${fake.bot.id}> mention`);
      fake.directMessage('a dm');
      await waitFor(() => seen.length === 3);
      expect(seen.map((m) => m.content)).toEqual(['', `<@${fake.bot.id}> mention`, 'a dm']);
    } finally {
      await client.destroy();
    }
  });

  it('without GuildMessages no guild message arrives at all', async () => {
    fake = await startFakeDiscord();
    const client = new Client({
      intents: [GatewayIntentBits.Guilds, GatewayIntentBits.DirectMessages],
      partials: [Partials.Channel],
      rest: { api: fake.apiUrl, retries: 0 },
    });
    const seen: string[] = [];
    client.on(Events.MessageCreate, (m) => void seen.push(m.content));
    try {
      const ready = new Promise((r) => client.once(Events.ClientReady, r));
      await client.login(FAKE_DISCORD_TOKEN);
      await ready;
      fake.userMessage(fake.general.id, `<@${fake.bot.id}> in a channel`);
      fake.directMessage('in a dm');
      await waitFor(() => seen.length === 1);
      await new Promise((r) => setTimeout(r, 50));
      expect(seen).toEqual(['in a dm']);
    } finally {
      await client.destroy();
    }
  });
});
