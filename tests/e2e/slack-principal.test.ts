import { afterEach, describe, expect, it } from 'vitest';
import { scheduleActionId } from '../../src/chat/action-id.js';
import { waitFor } from '../fakes/wait-for.js';
import { sqliteDb } from '../fakes/sqlite-db.js';
import { toolResultJson } from '../support/tool-result-json.js';
import { errandFileEnv } from '../fixtures/errand-file.js';
import { ExternalToolsFixture } from '../integration/external-tools-fixture.js';
import { buttonsOf, startErrand, texts, type Errand } from './slack-harness.js';

const GENERAL = 'C0GENERAL';
const ALICE = 'U0ALICE01';
const BOB = 'U0BOB0001';
const ADMIN = 'U0ADMIN01';
const RANDOM = 'C0RANDOM01';
const TEAM = { platform: 'slack', workspace: 'T0FAKE01', channel: GENERAL };
const ACCESS = { users: [`slack:${ALICE}`, `slack:${BOB}`], admins: [`slack:${ADMIN}`], schedules: 'admins' };

let e: Errand | null = null;
afterEach(async () => {
  await e?.app.coordinator.idle();
  await e?.close();
  e = null;
});

/** The private answer to a click, posted through its response_url. */
const clickReply = async (s: Errand['slack'], click: { responseId: string }) =>
  (await waitFor(() => s.responses.find((r) => r.id === click.responseId), 5000, 'the private answer to the click'))!
    .body;

const usageOf = (app: Errand['app'], user: string) =>
  (
    sqliteDb(app.store)
      .$client.prepare(
        'select coalesce(sum(prompt_tokens + completion_tokens), 0) as tokens from usage_daily where user = ?',
      )
      .get(user) as { tokens: number }
  ).tokens;

describe('every run acts for someone (DESIGN.md "On whose behalf"), on Slack end to end', () => {
  it("a to-do added by a non-admin's scheduled run acts for the schedule's creator: no schedules, her approval, her budget, her stop", async () => {
    const tools = new ExternalToolsFixture();
    e = await startErrand({ env: errandFileEnv({ access: ACCESS }), externalTools: tools.source });
    const { slack: s, model, clock, app } = e;
    model.reply(
      // Alice's own run: a schedule repeating in her thread (allowed to her under `schedules: "admins"`).
      {
        toolCalls: [
          {
            name: 'schedule_prompt',
            arguments: { prompt: 'check the tracker', kind: 'interval', spec: '5', target: 'thread' },
          },
        ],
      },
      { text: 'Scheduled every 5 minutes here.' },
      // The scheduled run adds a to-do.
      { toolCalls: [{ name: 'add_task', arguments: { title: 'File the login issue' } }] },
      { text: 'Added a to-do.' },
      // The to-do tries to make a channel schedule, then calls a gated tool.
      {
        toolCalls: [
          {
            name: 'schedule_prompt',
            arguments: { prompt: 'spam the channel', kind: 'interval', spec: '5', target: 'channel' },
          },
        ],
      },
      { toolCalls: [{ name: 'tracker__create_issue', arguments: { title: 'Broken login' } }] },
      { text: 'Filed it.' },
    );
    const { ts } = await s.mention({ user: ALICE, channel: GENERAL, text: 'every 5 minutes, check the tracker here' });
    await waitFor(() => texts(s, ts).includes('Scheduled every 5 minutes here.'), 10_000, 'the schedule confirmed');
    await app.coordinator.idle();

    clock.advance(5 * 60_000 + 1000);
    const approval = (await waitFor(
      () => s.messages(GENERAL, ts).find((m) => m.text.includes('Approval needed')),
      15_000,
      'the approval post of the to-do',
    ))!;
    await app.coordinator.idle();

    // The to-do descends from a scheduled prompt: schedule_prompt is not offered, and no channel schedule exists.
    expect(model.requests[4]!.tools.map((t) => t.function.name)).not.toContain('schedule_prompt');
    expect(
      (await app.schedules.list({ platform: 'slack', workspace: 'T0FAKE01', channel: GENERAL })).map((r) => r.target),
    ).toEqual(['thread']);
    // Its approval names Alice, and only she (or an admin) decides it.
    expect(approval.text).toContain(`<@${ALICE}>`);
    const allowOnce = buttonsOf(approval)[0]!.action_id;
    const bob = await s.click({ user: BOB, channel: GENERAL, messageTs: approval.ts, actionId: allowOnce });
    expect(await clickReply(s, bob)).toMatchObject({
      response_type: 'ephemeral',
      text: `Only <@${ALICE}> (who asked for this) or an admin can allow or deny this tool call.`,
    });
    expect(tools.calls).toHaveLength(0);
    // Bob may not stop it either.
    await s.userMessage({ user: BOB, channel: GENERAL, text: 'stop', threadTs: ts });
    const refusal = await waitFor(() => s.ephemerals.find((x) => x.user === BOB), 5000, 'the refusal of a typed stop');
    expect(refusal!.text).toBe('Only the person who asked for this work, or an admin, can stop it.');

    await s.click({ user: ALICE, channel: GENERAL, messageTs: approval.ts, actionId: allowOnce });
    await waitFor(() => texts(s, ts).includes('Filed it.'), 10_000, 'the to-do finished after her approval');
    await app.coordinator.idle();
    expect(tools.calls).toEqual([{ name: 'tracker__create_issue', args: { title: 'Broken login' } }]);
    // Every request of the three runs was charged to Alice; nothing to nobody.
    expect(usageOf(app, `slack:${ALICE}`)).toBe(model.requests.length * 2);
    expect(usageOf(app, 'unattributed')).toBe(0);
    const todo = (await app.tasks.list(`slack:T0FAKE01:${GENERAL}:${ts}`)).find(
      (t) => t.title === 'File the login issue',
    );
    expect(todo).toMatchObject({ createdBy: 'agent', requestedBy: ALICE, fromSchedule: true, status: 'completed' });
  });

  it('the schedule tools check the same rights as /schedules: a non-admin cannot pause, resume or delete a channel schedule by asking', async () => {
    e = await startErrand({ env: errandFileEnv({ access: ACCESS }) });
    const { slack: s, model, app } = e;
    const created = await app.schedules.create({
      channel: TEAM,
      target: 'channel',
      conversationId: null,
      prompt: 'post the standup',
      kind: 'interval',
      spec: '60',
      timezone: 'UTC',
      createdBy: ADMIN,
    });
    if (!created.ok) throw new Error(created.error);
    const id = created.schedule.id;
    model.reply(
      {
        toolCalls: [
          { name: 'pause_schedule', arguments: { schedule_id: id } },
          { name: 'delete_schedule', arguments: { schedule_id: `#${id}` } },
        ],
      },
      { text: 'I could not.' },
    );
    const { ts } = await s.mention({ user: BOB, channel: GENERAL, text: `delete schedule #${id}` });
    await waitFor(() => texts(s, ts).includes('I could not.'), 10_000, 'the answer');
    const results = model.requests[1]!.messages.filter((m) => m.role === 'tool').map(
      (m) => toolResultJson(m.content) as { ok: boolean; error?: string },
    );
    expect(results).toEqual([
      {
        ok: false,
        error: 'Only admins may manage schedules that post into a channel here. Tell the person to ask an admin.',
      },
      {
        ok: false,
        error: 'Only admins may manage schedules that post into a channel here. Tell the person to ask an admin.',
      },
    ]);
    expect((await app.schedules.find(id))?.status).toBe('active');
    // The command says the same to the same person.
    const r = await s.slashCommand({ command: '/schedules', text: `delete ${id}`, user: BOB, channel: GENERAL });
    expect((JSON.parse(r.body) as { text: string }).text).toBe(
      'Only admins may manage schedules that post into a channel here. Ask an admin.',
    );

    // An admin asking the same is obeyed.
    model.reply({ toolCalls: [{ name: 'delete_schedule', arguments: { schedule_id: id } }] }, { text: 'Deleted.' });
    const admin = await s.mention({ user: ADMIN, channel: GENERAL, text: `delete schedule #${id}` });
    await waitFor(() => texts(s, admin.ts).includes('Deleted.'), 10_000, "the admin's answer");
    expect(await app.schedules.find(id)).toBeNull();
  });

  it("App Home Edit cannot turn a non-admin's own thread schedule into a schedule posting into another channel", async () => {
    e = await startErrand({ env: errandFileEnv({ access: ACCESS }) });
    const { slack: s, app } = e;
    const conversationId = await app.conversations.ensure({ ...TEAM, thread: '1700000000.000100' });
    const created = await app.schedules.create({
      channel: TEAM,
      target: 'thread',
      conversationId,
      prompt: 'check my build',
      kind: 'interval',
      spec: '60',
      timezone: 'UTC',
      createdBy: ALICE,
    });
    if (!created.ok) throw new Error(created.error);
    s.memberships.set(ALICE, [GENERAL, RANDOM]);
    await s.openHome(ALICE);
    await waitFor(
      () => JSON.stringify(s.homeOf(ALICE)?.view.blocks ?? []).includes('check my build'),
      10_000,
      'the Home view',
    );
    await s.clickInView({
      user: ALICE,
      viewId: s.homeOf(ALICE)!.id,
      actionId: scheduleActionId('edit', created.schedule.id),
    });
    const modal = (await waitFor(() => s.modalOf(ALICE), 10_000, 'the edit form'))!;
    const { response } = await s.submitView({
      user: ALICE,
      viewId: modal.id,
      values: { channel: RANDOM, prompt: 'check my build', when: '60', timezone: 'UTC' },
    });
    expect(response?.response_action).toBe('errors');
    expect((response?.errors as Record<string, string>).channel).toBe(
      'Only admins may manage schedules that post into a channel here. Ask an admin.',
    );
    expect(await app.schedules.list({ ...TEAM, channel: RANDOM })).toEqual([]);
    expect(await app.schedules.find(created.schedule.id)).toMatchObject({
      target: 'thread',
      channel: GENERAL,
      status: 'active',
    });
    // Edited where it is, it stays her thread schedule.
    const same = await s.submitView({
      user: ALICE,
      viewId: modal.id,
      values: { channel: GENERAL, prompt: 'check my nightly build', when: '60', timezone: 'UTC' },
    });
    expect(same.response).toBeNull();
    expect(await app.schedules.find(created.schedule.id)).toMatchObject({
      target: 'thread',
      prompt: 'check my nightly build',
    });
  });
});
