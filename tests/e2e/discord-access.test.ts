import { afterEach, describe, expect, it } from 'vitest';
import { parseActionId } from '../../src/chat/action-id.js';
import { nextSnowflake, type FakeDiscord, type FakeMessage, type FakeUser } from '../fakes/fake-discord.js';
import { waitFor } from '../fakes/wait-for.js';
import { errandFileEnv } from '../fixtures/errand-file.js';
import { toolResultJson } from '../support/tool-result-json.js';
import { ExternalToolsFixture } from '../integration/external-tools-fixture.js';
import { startDiscordErrand, until, type DiscordErrand } from './discord-harness.js';

let e: DiscordErrand | null = null;
afterEach(async () => {
  await e?.app.coordinator.idle();
  await e?.close();
  e = null;
});

/** The people and places of a test, created on the fake before Errand connects (so GUILD_CREATE carries them). */
interface Cast {
  bob: FakeUser;
  carol: FakeUser;
  admin: FakeUser;
  /** A role only Bob has. */
  helpers: string;
  random: string;
}

async function start(
  access: (d: FakeDiscord, cast: Cast) => Record<string, unknown>,
  tools?: ExternalToolsFixture,
): Promise<DiscordErrand & Cast> {
  let cast: Cast | null = null;
  e = await startDiscordErrand(
    (d) => {
      const helpers = d.addRole('helpers').id;
      const person = (username: string, roles: string[] = []): FakeUser => {
        const u = { id: nextSnowflake(), username, roles };
        d.users.set(u.id, u);
        return u;
      };
      cast = {
        bob: person('bob', [helpers]),
        carol: person('carol'),
        admin: person('boss'),
        helpers,
        random: d.addTextChannel('random').id,
      };
      return errandFileEnv({ access: access(d, cast) });
    },
    tools ? { externalTools: tools.source } : {},
  );
  return { ...e, ...cast! };
}

const texts = (d: FakeDiscord, channelId: string) =>
  d
    .botMessagesIn(channelId)
    .map((m) => m.content)
    .filter((t) => !t.startsWith('⏳ Working'));
const mention = (d: FakeDiscord, channelId: string, text: string, author?: FakeUser) =>
  d.userMessage(channelId, `<@${d.bot.id}> ${text}`, author);
const buttonsOf = (m: FakeMessage) =>
  (m.components as { components: { custom_id: string; label: string }[] }[]).flatMap((row) => row.components);
const id = (u: FakeUser) => `discord:${u.id}`;

/** The single ephemeral reply to an interaction. */
async function ephemeralReply(record: { responses: { ephemeral: boolean; content: string }[] }): Promise<string> {
  await until(() => record.responses.length === 1, 5000);
  expect(record.responses[0]!.ephemeral).toBe(true);
  return record.responses[0]!.content;
}

describe('access rules on Discord, end to end (real discord.js against the fake Discord)', () => {
  it('someone not on the users list gets one reply mentioning them, however often they write: no thread, no model request, no task', async () => {
    const { discord: d, model, app, bob, carol } = await start((_d, c) => ({ users: [id(c.bob)] }));
    const first = mention(d, d.general.id, 'do my homework', carol);
    const refusal = await until(() => texts(d, d.general.id).find((t) => t.includes('Sorry')), 5000);
    expect(refusal).toBe(
      `<@${carol.id}> Sorry, you're not on the list of people who can use Errand here. Ask an admin of this workspace if you need access.`,
    );
    d.redeliver(first.id);
    mention(d, d.general.id, 'please?', carol);

    // A listed person's request afterwards is answered, so the refused messages were all handled by then.
    model.reply({ text: 'Hi Bob.' });
    const forBob = mention(d, d.general.id, 'hello', bob);
    await waitFor(() => texts(d, forBob.id).includes('Hi Bob.'), 10_000, "Bob's answer");
    expect(texts(d, d.general.id)).toEqual([refusal]);
    expect(d.messages.get(first.id)!.thread).toBeUndefined();
    expect(d.callsTo('POST', /\/threads$/)).toHaveLength(1);
    expect(model.requests).toHaveLength(1);
    expect(await app.tasks.get(2)).toBeNull();
  });

  it('a "discord:role:<id>" entry lets members with that role in, from messages and slash commands alike', async () => {
    const { discord: d, model, bob, carol } = await start((_d, c) => ({ users: [`discord:role:${c.helpers}`] }));
    model.reply({ text: 'Hi helper.' });
    const msg = mention(d, d.general.id, 'hello', bob);
    await waitFor(() => texts(d, msg.id).includes('Hi helper.'), 10_000, "the helper's answer");
    expect(await ephemeralReply(d.slashCommand('tasks', d.general.id, [], bob))).not.toMatch(/Sorry/);

    mention(d, d.general.id, 'hello', carol);
    await until(
      () => texts(d, d.general.id).find((t) => t.startsWith(`<@${carol.id}> Sorry, you're not on the list`)),
      5000,
    );
    expect(await ephemeralReply(d.slashCommand('tasks', d.general.id, [], carol))).toMatch(
      /^Sorry, you're not on the list/,
    );
    expect(model.requests).toHaveLength(1);
  });

  it('a member of an admin role is an admin in chat too: their run may create and delete channel schedules under `schedules: "admins"`', async () => {
    const {
      discord: d,
      model,
      app,
      bob,
      carol,
    } = await start((_d, c) => ({ admins: [`discord:role:${c.helpers}`], schedules: 'admins' }));
    model.reply(
      {
        toolCalls: [
          {
            name: 'schedule_prompt',
            arguments: { prompt: 'post the standup', kind: 'interval', spec: '60', target: 'channel' },
          },
        ],
      },
      { text: 'Scheduled.' },
    );
    const msg = mention(d, d.general.id, 'every hour, post the standup here', bob);
    await waitFor(() => texts(d, msg.id).includes('Scheduled.'), 10_000, "the role admin's answer");
    expect(toolResultJson(model.requests[1]!.messages.at(-1)!.content)).toMatchObject({
      ok: true,
      schedule: { id: 1, target: 'channel' },
    });
    const channel = { platform: 'discord', workspace: d.guildId, channel: d.general.id };
    expect(await app.schedules.list(channel)).toMatchObject([{ id: 1, createdBy: bob.id, creatorRoles: bob.roles }]);

    // Someone without the role is refused the same thing.
    model.reply({ toolCalls: [{ name: 'delete_schedule', arguments: { schedule_id: 1 } }] }, { text: 'Refused.' });
    const other = mention(d, d.general.id, 'delete schedule 1', carol);
    await waitFor(() => texts(d, other.id).includes('Refused.'), 10_000, "carol's answer");
    expect(toolResultJson(model.requests[3]!.messages.at(-1)!.content)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^Only admins may manage schedules/),
    });
    expect(await app.schedules.find(1)).not.toBeNull();
  });

  it('a channel not in channels is refused with one reply there; in a listed channel its threads take replies, commands and clicks', async () => {
    const { discord: d, model, random } = await start((fake) => ({ channels: [`discord:${fake.general.id}`] }));
    model.reply(
      { toolCalls: [{ name: 'ask_user', arguments: { question: 'Which format?', options: ['PDF', 'Markdown'] } }] },
      { text: 'PDF it is.' },
      { text: 'Noted.' },
    );
    mention(d, random, 'hello');
    const refusal = await until(() => texts(d, random).find((t) => t.includes('Sorry')), 5000);
    expect(refusal).toBe(
      `<@${d.alice.id}> Sorry, Errand isn't enabled in this channel. Ask an admin, or use a channel where it is.`,
    );

    const here = mention(d, d.general.id, 'write the report');
    const question = await until(
      () => d.botMessagesIn(here.id).find((m) => m.content.includes('Which format?')),
      10_000,
    );
    await e!.app.coordinator.idle();
    expect(await ephemeralReply(d.slashCommand('tasks', here.id))).toContain('write the report');
    d.clickButton(question.id, buttonsOf(question)[0]!.custom_id);
    await waitFor(() => texts(d, here.id).includes('PDF it is.'), 10_000, 'the answer after the click');
    d.userMessage(here.id, 'thanks, also add a summary');
    await waitFor(() => texts(d, here.id).includes('Noted.'), 10_000, 'the answer to a thread reply');
    expect(texts(d, here.id).filter((t) => t.includes('Sorry'))).toEqual([]);
  });

  it('directMessages "off": a DM gets one reply and a slash command in the DM an ephemeral refusal; admins are still answered', async () => {
    const { discord: d, model, admin } = await start((_d, c) => ({ directMessages: 'off', admins: [id(c.admin)] }));
    model.reply({ text: 'Hello admin.' });
    const dm = d.directMessage('psst');
    await until(
      () =>
        texts(d, dm.channel_id).find(
          (t) =>
            t ===
            `<@${d.alice.id}> Sorry, Errand doesn't take direct messages here. Mention it in a channel where it is enabled.`,
        ),
      5000,
    );
    expect(await ephemeralReply(d.slashCommand('tasks', dm.channel_id))).toMatch(
      /^Sorry, Errand doesn't take direct messages here/,
    );
    const adminDm = d.directMessage('psst', admin);
    await waitFor(() => texts(d, adminDm.channel_id).includes('Hello admin.'), 10_000, 'the admin answered');
    expect(texts(d, dm.channel_id)).toHaveLength(1);
    expect(model.requests).toHaveLength(1);
  });

  it('directMessages "allowlist" answers listed people in DMs and refuses others', async () => {
    const {
      discord: d,
      model,
      bob,
    } = await start((fake) => ({ directMessages: 'allowlist', users: [id(fake.alice)] }));
    model.reply({ text: 'Hello Alice.' });
    const refused = d.directMessage('psst', bob);
    await until(
      () =>
        texts(d, refused.channel_id).find((t) =>
          t.startsWith(`<@${bob.id}> Sorry, direct messages with Errand are limited to listed people.`),
        ),
      5000,
    );
    const dm = d.directMessage('psst');
    await waitFor(() => texts(d, dm.channel_id).includes('Hello Alice.'), 10_000, 'Alice answered');
    expect(model.requests).toHaveLength(1);
  });

  it("Stop from someone else gets an ephemeral refusal and the run goes on; an admin's Stop stops it", async () => {
    const {
      discord: d,
      model,
      app,
      bob,
      admin,
    } = await start((fake, c) => ({ users: [id(fake.alice), id(c.bob)], admins: [id(c.admin)] }));
    model.reply({ hang: true });
    const msg = mention(d, d.general.id, 'a long job');
    const notice = await until(
      () => d.botMessagesIn(msg.id).find((m) => m.content.startsWith('⏳ Working') && m.components.length > 0),
      10_000,
    );
    const stop = buttonsOf(notice)[0]!.custom_id;

    expect(await ephemeralReply(d.clickButton(notice.id, stop, bob))).toBe(
      'Only the person who asked for this work, or an admin, can stop it.',
    );
    expect(model.requests[0]!.aborted).toBe(false);
    expect((await app.runs.get(parseActionId(stop)!.runId))?.status).toBe('running');

    d.clickButton(notice.id, stop, admin);
    await waitFor(() => texts(d, msg.id).some((t) => t.includes('Stopped')), 10_000, 'the stop note');
    await waitFor(() => model.requests[0]!.aborted, 5000, 'the model request to be aborted');
  });

  it('a tool approval clicked by someone other than the requester is refused; an admin allows it and the tool runs', async () => {
    const tools = new ExternalToolsFixture();
    const {
      discord: d,
      model,
      app,
      bob,
      admin,
    } = await start((fake, c) => ({ users: [id(fake.alice), id(c.bob)], admins: [id(c.admin)] }), tools);
    model.reply(
      { toolCalls: [{ name: 'tracker__create_issue', arguments: { title: 'Broken login' } }] },
      { text: 'Filed it.' },
    );
    const msg = mention(d, d.general.id, 'file an issue about the login');
    const approval = await until(
      () => d.botMessagesIn(msg.id).find((m) => m.content.includes('Approval needed') && m.components.length > 0),
      10_000,
    );
    await app.coordinator.idle();
    const allowOnce = buttonsOf(approval)[0]!.custom_id;

    expect(await ephemeralReply(d.clickButton(approval.id, allowOnce, bob))).toBe(
      `Only <@${d.alice.id}> (who asked for this) or an admin can allow or deny this tool call.`,
    );
    expect(tools.calls).toHaveLength(0);
    expect((await app.runs.get(parseActionId(allowOnce)!.runId))?.status).toBe('waiting_user');

    d.clickButton(approval.id, allowOnce, admin);
    await waitFor(() => texts(d, msg.id).includes('Filed it.'), 10_000, 'the answer after approval');
    expect(tools.calls).toEqual([{ name: 'tracker__create_issue', args: { title: 'Broken login' } }]);
    expect(d.messages.get(approval.id)!.content).toContain(`<@${admin.id}> chose **Allow once**`);
  });

  it("an ask_user question answered by someone else becomes a queued to-do; the asker's answer resumes the run", async () => {
    const { discord: d, model, app, bob } = await start((_d, c) => ({ admins: [id(c.admin)] }));
    model.reply(
      { toolCalls: [{ name: 'ask_user', arguments: { question: 'Which format?', options: ['PDF', 'Markdown'] } }] },
      { text: 'PDF it is.' },
      { text: 'Bob gets Markdown.' },
    );
    const msg = mention(d, d.general.id, 'write the report');
    const question = await until(
      () => d.botMessagesIn(msg.id).find((m) => m.content.includes('Which format?')),
      10_000,
    );
    await app.coordinator.idle();

    expect(await ephemeralReply(d.clickButton(question.id, buttonsOf(question)[1]!.custom_id, bob))).toBe(
      `This question is for <@${d.alice.id}>. Write your own request in the thread and I'll queue it.`,
    );
    d.userMessage(msg.id, 'Markdown!', bob);
    await waitFor(() => texts(d, msg.id).some((t) => t.startsWith('📝 Queued as task #2')), 10_000, 'the queued note');
    expect(await app.tasks.get(2)).toMatchObject({ requestedBy: bob.id, status: 'pending' });
    expect(model.requests).toHaveLength(1);

    d.userMessage(msg.id, 'PDF');
    await waitFor(() => texts(d, msg.id).includes('PDF it is.'), 10_000, 'the resumed run');
    await waitFor(() => texts(d, msg.id).includes('Bob gets Markdown.'), 10_000, "Bob's to-do");
  });
});
