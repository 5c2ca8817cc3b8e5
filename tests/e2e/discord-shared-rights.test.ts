import { afterEach, describe, expect, it } from 'vitest';
import { nextSnowflake, type FakeDiscord, type FakeUser } from '../fakes/fake-discord.js';
import { waitFor } from '../fakes/wait-for.js';
import { errandFileEnv } from '../fixtures/errand-file.js';
import { toolResultJson } from '../support/tool-result-json.js';
import { capturingLogger } from '../fixtures/mcp/mcp-test-kit.js';
import { startDiscordErrand, startDiscordHarness, type DiscordErrand } from './discord-harness.js';

/*
 * DESIGN.md "Private stays private in a shared thread" and "Memory" on Discord, end to end: what one person keeps
 * reaches no one else's run.
 */

let e: DiscordErrand | null = null;
afterEach(async () => {
  await e?.app.coordinator.idle();
  await e?.close();
  e = null;
});

const texts = (d: FakeDiscord, channelId: string) =>
  d
    .botMessagesIn(channelId)
    .map((m) => m.content)
    .filter((t) => !t.startsWith('⏳ Working'));
const id = (u: FakeUser) => `discord:${u.id}`;
const sent = (request: { messages: unknown[] }) => JSON.stringify(request.messages);

describe('workspace memories on Discord: a DM belongs to no server', () => {
  it("an admin's DM cannot remember for a workspace, and what an older version kept there reaches nobody's DM; a server's own memories stay in its channels", async () => {
    let cast: { admin: FakeUser; bob: FakeUser } | null = null;
    e = await startDiscordErrand((d) => {
      const person = (username: string): FakeUser => {
        const u = { id: nextSnowflake(), username, roles: [] };
        d.users.set(u.id, u);
        return u;
      };
      cast = { admin: person('boss'), bob: person('bob') };
      return errandFileEnv({ access: { admins: [id(cast.admin)] } });
    });
    const { admin, bob } = cast!;
    const { discord: d, model, app } = e;
    // Kept by an earlier version of Errand in the admin's DM, as every DM's "workspace" then.
    await app.store.memory.remember({
      scope: 'workspace',
      subject: 'discord:@me',
      text: 'The launch code is ADMIN-DM-SECRET',
      createdBy: id(admin),
    });
    await app.store.memory.remember({
      scope: 'workspace',
      subject: `discord:${d.guildId}`,
      text: 'The company is called GUILD-FACT Inc',
      createdBy: id(admin),
    });

    model.reply(
      {
        toolCalls: [{ name: 'remember', arguments: { text: 'Deploys need NEW-DM-FACT approval', scope: 'workspace' } }],
      },
      { text: 'Noted where I could.' },
    );
    const adminDm = d.directMessage('remember for the whole workspace: deploys need NEW-DM-FACT approval', admin);
    await waitFor(
      () => texts(d, adminDm.channel_id).includes('Noted where I could.'),
      10_000,
      "the admin's DM answered",
    );
    const refused = model.requests[1]!.messages.filter((m) => m.role === 'tool').map((m) => toolResultJson(m.content));
    expect(refused).toEqual([
      {
        ok: false,
        error: expect.stringMatching(
          /^This is a direct message outside any server or workspace, so there is no workspace to remember for/,
        ),
      },
    ]);
    await app.coordinator.idle();

    model.reply({ text: 'Hi Bob.' });
    const bobDm = d.directMessage('what do you know?', bob);
    await waitFor(() => texts(d, bobDm.channel_id).includes('Hi Bob.'), 10_000, "Bob's DM answered");
    const bobsRequest = sent(model.requests[2]!);
    expect(bobsRequest).toContain('what do you know?');
    expect(bobsRequest).not.toContain('ADMIN-DM-SECRET');
    expect(bobsRequest).not.toContain('NEW-DM-FACT');
    expect(bobsRequest).not.toContain('GUILD-FACT');
    await app.coordinator.idle();

    model.reply({ text: 'Hello in the server.' });
    const mention = d.userMessage(d.general.id, `<@${d.bot.id}> what do you know here?`, bob);
    await waitFor(() => texts(d, mention.id).includes('Hello in the server.'), 10_000, "Bob's mention answered");
    expect(sent(model.requests[3]!)).toContain('GUILD-FACT');
    expect(sent(model.requests[3]!)).not.toContain('ADMIN-DM-SECRET');
  });
});

describe("a schedule runs with its creator's rights at fire time: Discord roles are read then, never copied (end to end)", () => {
  /** Bob is an admin through the `leads` role; only admins may post schedules into a channel. Carol is an admin by name. */
  async function startWithLeads() {
    let cast: { bob: FakeUser; carol: FakeUser; leads: string } | null = null;
    e = await startDiscordErrand((d) => {
      const leads = d.addRole('leads').id;
      const person = (username: string, roles: string[] = []): FakeUser => {
        const u = { id: nextSnowflake(), username, roles };
        d.users.set(u.id, u);
        return u;
      };
      cast = { bob: person('bob', [leads]), carol: person('carol'), leads };
      return errandFileEnv({
        access: {
          users: [`discord:role:${leads}`],
          admins: [`discord:role:${leads}`, id(cast.carol)],
          schedules: 'admins',
        },
      });
    });
    const { bob, leads } = cast!;
    const { discord: d, app } = e;
    // Made by Bob while he led (as schedule_prompt in his run would make it: his roles then are on the row).
    const r = await app.schedules.create({
      channel: { platform: 'discord', workspace: d.guildId, channel: d.general.id },
      target: 'channel',
      conversationId: null,
      prompt: 'post the on-call rota',
      kind: 'interval',
      spec: '60',
      timezone: 'UTC',
      createdBy: bob.id,
      creatorRoles: [leads],
    });
    if (!r.ok) throw new Error(r.error);
    return { ...cast!, id: r.schedule.id };
  }
  const topLevel = (d: FakeDiscord) =>
    d.botMessagesIn(d.general.id).filter((m) => m.content.includes('post the on-call rota'));

  it("the creator's admin role taken away: the schedule pauses at its next fire without posting, and the creator and the admins get a direct message", async () => {
    const { bob, carol, id: scheduleId } = await startWithLeads();
    const { discord: d, app, clock, model } = e!;
    d.users.get(bob.id)!.roles = [];
    clock.advance(60 * 60_000 + 1000);
    const paused = await waitFor(
      async () => {
        const row = await app.schedules.find(scheduleId);
        return row?.status === 'paused' ? row : null;
      },
      10_000,
      'the schedule to pause',
    );
    expect(paused!.failReason).toMatch(new RegExp(`its creator <@${bob.id}> may no longer use Errand`));
    const toBob = await waitFor(
      () => d.dmChannelOf(bob.id) && d.botMessagesIn(d.dmChannelOf(bob.id)!.id)[0],
      10_000,
      'the DM to Bob',
    );
    expect(toBob!.content).toMatch(new RegExp(`^⏸️ Your schedule #${scheduleId} `));
    const toCarol = await waitFor(
      () => d.dmChannelOf(carol.id) && d.botMessagesIn(d.dmChannelOf(carol.id)!.id)[0],
      10_000,
      'the DM to Carol',
    );
    expect(toCarol!.content).toContain(`of <@${bob.id}>`);
    await app.coordinator.idle();
    expect(topLevel(d)).toEqual([]);
    expect(model.requests).toEqual([]);
  });

  it('with the role still held, it runs, and its run acts with the roles read at the fire', async () => {
    const { id: scheduleId, bob, leads } = await startWithLeads();
    const { discord: d, app, clock, model } = e!;
    model.reply({ text: 'Here is the rota.' });
    clock.advance(60 * 60_000 + 1000);
    const top = await waitFor(() => topLevel(d)[0], 10_000, 'the scheduled post');
    await waitFor(() => texts(d, top!.id).includes('Here is the rota.'), 10_000, 'the run in its thread');
    await app.coordinator.idle();
    expect(await app.schedules.find(scheduleId)).toMatchObject({ status: 'active', failReason: null });
    const conversation = `discord:${d.guildId}:${d.general.id}:${top!.id}`;
    expect((await app.tasks.list(conversation))[0]).toMatchObject({
      requestedBy: bob.id,
      requesterRoles: [leads],
      createdBy: 'schedule',
    });
  });
});

describe('a Connect link in a failed Discord direct message', () => {
  it("never reaches the log: the error the outbox logs names the call and Discord's answer, not the message it carried", async () => {
    const h = await startDiscordHarness();
    try {
      const direct = h.adapter.capabilities.directMessage!;
      expect(await direct.sendDirect(h.fake.alice.id, 'hello')).toMatchObject({ kind: 'sent' });
      h.fake.failAfterStoreOnce(h.fake.dmChannelOf(h.fake.alice.id)!.id);
      const link = 'https://auth.example/authorize?client_id=errand&state=S3CR3T-STATE-VALUE';
      const err = await direct
        .sendDirect(
          h.fake.alice.id,
          `To use **linear** for you I need you to connect your account. Connect linear: ${link}`,
        )
        .then(
          () => null,
          (e: unknown) => e,
        );
      expect(err).toBeInstanceOf(Error);
      // Logged as the outbox logs a private notice that failed (outbox/row-delivery.ts).
      const log = capturingLogger();
      log.logger.warn({ err, outboxId: 1, purpose: 'ephemeral' }, 'posting a private notice failed');
      const written = JSON.stringify(log.lines);
      expect(written).toContain('Discord post failed');
      expect(written).not.toContain('S3CR3T-STATE-VALUE');
      expect(written).not.toContain('auth.example');
    } finally {
      await h.close();
    }
  });
});
