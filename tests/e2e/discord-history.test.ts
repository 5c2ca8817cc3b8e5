import { afterEach, describe, expect, it } from 'vitest';
import { nextSnowflake, type FakeDiscord, type FakeUser } from '../fakes/fake-discord.js';
import { waitFor } from '../fakes/wait-for.js';
import { startDiscordErrand, type DiscordErrand } from './discord-harness.js';
import { readMessages } from './history-results.js';

let e: DiscordErrand | null = null;
afterEach(async () => {
  await e?.close();
  e = null;
});

const texts = (d: FakeDiscord, channelId: string) => d.botMessagesIn(channelId).map((m) => m.content);

function bob(d: FakeDiscord): FakeUser {
  const user: FakeUser = { id: nextSnowflake(), username: 'bob', globalName: 'Bob B', nick: 'Bobby' };
  d.users.set(user.id, user);
  return user;
}

describe('history tools on Discord, end to end', () => {
  it('read_thread reads a thread from its starter, with messages of people the bot never answered', async () => {
    e = await startDiscordErrand();
    const { discord: d, model } = e;
    const b = bob(d);
    const carol: FakeUser = { id: nextSnowflake(), username: 'carol', globalName: null };
    const thread = d.userThread(d.general.id, 'Deploy is failing on main');
    d.userMessage(thread.id, 'I think it is the cache', b);
    d.userMessage(thread.id, 'No, the migration', carol);
    d.userMessage(thread.id, 'CI: build 42 red', d.otherBot);
    model.reply(
      { toolCalls: [{ name: 'read_thread', arguments: {} }] },
      { text: 'Bobby blames the cache, carol the migration.' },
    );
    d.userMessage(thread.id, `<@${d.bot.id}> who said what?`);
    await waitFor(() => texts(d, thread.id).includes('Bobby blames the cache, carol the migration.'), 15_000);

    const read = readMessages(model.requests[1]!).filter((m) => !m.self);
    expect(read.map((m) => [m.author, m.text, m.bot ?? false])).toEqual([
      ['alice', 'Deploy is failing on main', false],
      ['Bobby', 'I think it is the cache', false],
      ['carol', 'No, the migration', false],
      ['otherbot', 'CI: build 42 red', true],
      ['alice', `<@${d.bot.id}> who said what?`, false],
    ]);
    for (const m of read) expect(new Date(m.time).toISOString()).toBe(m.time);
    expect(d.callsTo('GET', new RegExp(`^/channels/${thread.id}/messages$`))[0]!.query.get('after')).toBe('0');
  });

  it("read_channel lists the parent channel's messages newest last with reply counts, paging past 100", async () => {
    e = await startDiscordErrand();
    const { discord: d, model } = e;
    const b = bob(d);
    const elsewhere = d.addTextChannel('random');
    d.userMessage(elsewhere.id, 'secret elsewhere', b);
    const lunch = d.userThread(d.general.id, 'lunch at noon?', b);
    d.userMessage(lunch.id, 'yes');
    d.userMessage(lunch.id, 'me too', b);
    for (let i = 1; i <= 110; i++) d.userMessage(d.general.id, `chatter ${i}`, b);
    model.reply({ toolCalls: [{ name: 'read_channel', arguments: { limit: 200 } }] }, { text: 'Mostly chatter.' });
    const mention = d.userMessage(d.general.id, `<@${d.bot.id}> what is going on here?`);
    await waitFor(() => texts(d, mention.id).includes('Mostly chatter.'), 15_000);

    const read = readMessages(model.requests[1]!);
    expect(read).toHaveLength(112);
    expect(read[0]).toMatchObject({ author: 'Bobby', text: 'lunch at noon?', replies: 2 });
    expect(read[1]).toMatchObject({ author: 'Bobby', text: 'chatter 1' });
    expect(read.at(-1)).toMatchObject({ author: 'alice', text: `<@${d.bot.id}> what is going on here?` });
    expect(JSON.stringify(model.requests[1]!.messages)).not.toContain('secret elsewhere');
    const pages = d.callsTo('GET', new RegExp(`^/channels/${d.general.id}/messages$`));
    expect(pages.map((c) => c.query.has('before'))).toEqual([false, true]);
  });

  it("read_channel in a DM reads the DM, the bot's own answers marked", async () => {
    e = await startDiscordErrand();
    const { discord: d, model } = e;
    model.reply({ text: 'Hi Alice.' });
    const first = d.directMessage('hello');
    await waitFor(() => texts(d, first.channel_id).includes('Hi Alice.'));
    await e.app.coordinator.idle();
    model.reply({ toolCalls: [{ name: 'read_channel', arguments: {} }] }, { text: 'You said hello.' });
    d.directMessage('what did I say first?');
    await waitFor(() => texts(d, first.channel_id).includes('You said hello.'), 15_000);

    const read = readMessages(model.requests[2]!).filter((m) => !m.text.startsWith('⏳'));
    expect(read.map((m) => [m.author, m.text, m.self ?? false, m.bot ?? false])).toEqual([
      ['alice', 'hello', false, false],
      ['errand', 'Hi Alice.', true, true],
      ['alice', 'what did I say first?', false, false],
    ]);
  });

  it('with DISCORD_THREADS=false read_thread reads the channel the bot answers in', async () => {
    e = await startDiscordErrand({ DISCORD_THREADS: 'false' });
    const { discord: d, model } = e;
    d.userMessage(d.general.id, 'the build is red', bob(d));
    model.reply(
      { toolCalls: [{ name: 'read_thread', arguments: { limit: 5 } }] },
      { text: 'Bobby says the build is red.' },
    );
    d.userMessage(d.general.id, `<@${d.bot.id}> anything new?`);
    await waitFor(() => texts(d, d.general.id).includes('Bobby says the build is red.'), 15_000);

    const read = readMessages(model.requests[1]!).filter((m) => !m.self);
    expect(read.map((m) => [m.author, m.text])).toEqual([
      ['Bobby', 'the build is red'],
      ['alice', `<@${d.bot.id}> anything new?`],
    ]);
  });
});
