import { afterEach, describe, expect, it } from 'vitest';
import { directChannelOf } from '../fakes/fake-slack.js';
import { nextSnowflake, type FakeUser } from '../fakes/fake-discord.js';
import type { RecordedRequest } from '../fakes/fake-openai.js';
import { waitFor } from '../fakes/wait-for.js';
import { toolResultJson } from '../support/tool-result-json.js';
import { attachedFiles, startDiscordErrand, until, type DiscordErrand } from './discord-harness.js';
import { sharedFiles, startErrand, texts, type Errand } from './slack-harness.js';
import { rememberPrivately } from '../support/private-memory.js';

/*
 * Files a run's code writes after the run read its principal's private material (a `me` memory), on the real sandbox
 * and the real Bolt / discord.js against the fakes, with two people in one thread: the files go to their owner alone
 * first, reach the thread only when they share them, and stay out of the other person's calls in the workspace.
 */

const ALICE = 'U0ALICE01';
const BOB = 'U0BOB0001';
const CHANNEL = 'C0GENERAL';
const MEMORY = 'Alice locker code is 4711-ZETA';
/** Alice's run writes her code to a file to post, and a note it keeps in the workspace. */
const WRITE =
  "open('out/locker.txt', 'w').write('4711-ZETA')\nopen('notes.txt', 'w').write('4711 noted')\nprint('written')";
/** Every file of the workspace the call sees, with its text. */
const LIST =
  "import os\nprint(sorted((os.path.relpath(os.path.join(d, f)), open(os.path.join(d, f)).read()) for d, _, fs in os.walk('.') for f in fs))";

const secretIn = (text: string) => text.includes('4711');
/** The result of the latest run_code call the model was given. */
const lastCodeResult = (requests: readonly RecordedRequest[]): Record<string, unknown> => {
  const req = [...requests].reverse().find((r) => r.messages.at(-1)?.role === 'tool');
  return toolResultJson(req?.messages.at(-1)?.content) as Record<string, unknown>;
};

let slack: Errand | null = null;
let discord: DiscordErrand | null = null;
afterEach(async () => {
  await slack?.app.coordinator.idle();
  await slack?.close();
  slack = null;
  await discord?.close();
  discord = null;
});

describe('files from a private run (real sandbox)', () => {
  it("Slack: Alice's files go to her DM with an ephemeral Share in thread / Keep private, Bob's calls never see them, and Share posts them and makes them public", async () => {
    slack = await startErrand({ env: { STREAMING: 'false' } });
    const { slack: s, model, app } = slack;
    await rememberPrivately(app.store.memory, `slack:${ALICE}`, MEMORY);

    model.reply(
      { toolCalls: [{ name: 'recall', arguments: { query: 'locker code' } }] },
      { toolCalls: [{ name: 'run_code', arguments: { language: 'python', code: WRITE } }] },
      { text: 'Your file is ready.' },
    );
    const { ts } = await s.mention({ user: ALICE, channel: CHANNEL, text: 'put my locker code in a file' });
    const held = (await waitFor(
      () => s.ephemeralMessages.find((m) => m.user === ALICE && m.text.includes('locker.txt')),
      30_000,
      'the files shown to Alice alone',
    ))!;
    expect(held.thread_ts).toBe(ts);
    expect(held.text).toContain('direct messages');
    const buttons = JSON.stringify(held.blocks);
    expect(buttons).toContain('Share in thread');
    expect(buttons).toContain('Keep private');
    // The file itself is in her direct conversation with the bot, with the bytes the code wrote.
    const dm = await sharedFiles(s, directChannelOf(ALICE), null);
    expect(dm.map((f) => [f.name, Buffer.from(f.bytes).toString()])).toEqual([['locker.txt', '4711-ZETA']]);
    await app.coordinator.idle();
    await s.settle();
    // Nothing of it in the thread, nor in any call but those to her DM and her ephemeral notices.
    expect(await sharedFiles(s, CHANNEL, ts)).toEqual([]);
    expect(texts(s, ts).some(secretIn)).toBe(false);
    const elsewhere = s.calls.filter(
      (c) =>
        c.method !== 'chat.postEphemeral' &&
        c.args.channel !== directChannelOf(ALICE) &&
        c.args.channel_id !== directChannelOf(ALICE),
    );
    expect(secretIn(JSON.stringify(elsewhere.map((c) => [c.method, c.args])))).toBe(false);
    expect(lastCodeResult(model.requests)).toMatchObject({
      ok: true,
      files: [
        {
          name: 'locker.txt',
          posted: false,
          reason: expect.stringContaining('shown to the person you work for alone'),
        },
      ],
    });

    // Bob's call in the thread sees no file of hers, and is told there are some.
    model.reply(
      { toolCalls: [{ name: 'run_code', arguments: { language: 'python', code: LIST } }] },
      { text: 'I see no files.' },
    );
    await s.userMessage({
      user: BOB,
      channel: CHANNEL,
      text: `<@${s.botUserId}> which files are in the workspace?`,
      threadTs: ts,
    });
    await waitFor(() => texts(s, ts).includes('I see no files.'), 30_000, "Bob's answer");
    const bobs = lastCodeResult(model.requests);
    expect(bobs).toMatchObject({ ok: true, stdout: '[]\n' });
    expect(bobs.private_files_not_shown).toContain(`<@${ALICE}>`);
    await app.coordinator.idle();

    // She shares: the thread gets the file with its bytes, and from then on it is public in the workspace (her note is not).
    await s.clickInEphemeral({ user: ALICE, actionId: /"action_id":"(errand:private:share:\d+)"/.exec(buttons)![1]! });
    await waitFor(
      async () => (await sharedFiles(s, CHANNEL, ts)).length === 1,
      10_000,
      'the shared file in the thread',
    );
    expect((await sharedFiles(s, CHANNEL, ts)).map((f) => [f.name, Buffer.from(f.bytes).toString()])).toEqual([
      ['locker.txt', '4711-ZETA'],
    ]);
    model.reply(
      { toolCalls: [{ name: 'run_code', arguments: { language: 'python', code: LIST } }] },
      { text: 'Now I see one.' },
    );
    await s.userMessage({ user: BOB, channel: CHANNEL, text: 'and now?', threadTs: ts });
    await waitFor(() => texts(s, ts).includes('Now I see one.'), 30_000, "Bob's second answer");
    expect(lastCodeResult(model.requests)).toMatchObject({
      ok: true,
      stdout: "[('posted/locker.txt', '4711-ZETA')]\n",
    });
  }, 60_000);

  it('Discord: Alice gets her files and the buttons by DM, the thread nothing; Keep private leaves only a note', async () => {
    discord = await startDiscordErrand({ STREAMING: 'false' });
    const { discord: d, model, app } = discord;
    const bob: FakeUser = { id: nextSnowflake(), username: 'bob' };
    d.users.set(bob.id, bob);
    await rememberPrivately(app.store.memory, `discord:${d.alice.id}`, MEMORY);

    model.reply(
      { toolCalls: [{ name: 'recall', arguments: { query: 'locker code' } }] },
      { toolCalls: [{ name: 'run_code', arguments: { language: 'python', code: WRITE } }] },
      { text: 'Your file is ready.' },
    );
    const msg = d.userMessage(d.general.id, `<@${d.bot.id}> put my locker code in a file`);
    const dm = await until(() => d.dmChannelOf(d.alice.id), 30_000);
    const notice = await until(() => d.botMessagesIn(dm.id).find((m) => m.content.includes('locker.txt')), 30_000);
    expect(attachedFiles(d, dm.id).map((f) => [f.name, Buffer.from(f.bytes).toString()])).toEqual([
      ['locker.txt', '4711-ZETA'],
    ]);
    const customIds = JSON.stringify(notice.components);
    expect(customIds).toContain('Share in thread');
    await app.coordinator.idle();
    const everyPublic = () =>
      [...d.messages.values()]
        .filter((m) => m.channel_id !== dm.id)
        .map((m) => `${m.content} ${JSON.stringify(m.attachments ?? [])}`)
        .join('\n');
    expect(attachedFiles(d, msg.id)).toEqual([]);
    expect(secretIn(everyPublic())).toBe(false);

    // Bob cannot decide for her; she keeps them private: the thread reads only that she did.
    const keep = /"custom_id":"(errand:private:keep:\d+)"/.exec(customIds)![1]!;
    const refused = d.clickButton(notice.id, keep, bob);
    await until(() => refused.responses.length > 0, 10_000);
    expect(refused.responses[0]!.content).toContain(`Only <@${d.alice.id}> can share`);
    const click = d.clickButton(notice.id, keep);
    await until(() => click.responses.length > 0, 10_000);
    expect(click.responses[0]!.content).toContain('Kept private');
    await waitFor(
      () => d.botMessagesIn(msg.id).some((m) => m.content.includes(`<@${d.alice.id}> kept a file private`)),
      10_000,
      'the note in the thread',
    );
    expect(attachedFiles(d, msg.id)).toEqual([]);
    expect(secretIn(everyPublic())).toBe(false);
  }, 60_000);

  it('Discord: with her DMs closed, the files stay unposted and the thread is told why, naming no file', async () => {
    discord = await startDiscordErrand({ STREAMING: 'false' });
    const { discord: d, model, app } = discord;
    d.alice.dmsClosed = true;
    await rememberPrivately(app.store.memory, `discord:${d.alice.id}`, MEMORY);
    model.reply(
      { toolCalls: [{ name: 'recall', arguments: { query: 'locker code' } }] },
      { toolCalls: [{ name: 'run_code', arguments: { language: 'python', code: WRITE } }] },
      { text: 'Your file is ready.' },
    );
    const msg = d.userMessage(d.general.id, `<@${d.bot.id}> put my locker code in a file`);
    const note = await until(
      () =>
        d.botMessagesIn(msg.id).find((m) => m.content.includes('files that use what only you can see stay unposted')),
      30_000,
    );
    expect(note.content).toContain(`<@${d.alice.id}>`);
    await app.coordinator.idle();
    const everything = [...d.messages.values()]
      .map((m) => `${m.content} ${JSON.stringify(m.attachments ?? [])}`)
      .join('\n');
    expect(secretIn(everything)).toBe(false);
    expect(everything).not.toContain('locker.txt');
  }, 60_000);
});
