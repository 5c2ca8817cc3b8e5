import { afterEach, describe, expect, it } from 'vitest';
import { scheduleActionId } from '../../src/chat/action-id.js';
import type { StoredView } from '../fakes/fake-slack.js';
import { waitFor } from '../fakes/wait-for.js';
import { startErrand, type Errand } from './slack-harness.js';

const CHANNEL = 'C0GENERAL';
const ALICE = 'U0ALICE01';
const TEAM_CHANNEL = { platform: 'slack', workspace: 'T0FAKE01', channel: CHANNEL };

let e: Errand | null = null;
afterEach(async () => {
  await e?.close();
  e = null;
});

const homeText = (e: Errand, user: string) => JSON.stringify(e.slack.homeOf(user)?.view.blocks ?? []);

async function openedModal(e: Errand, user: string, before: number): Promise<StoredView> {
  const modal = await waitFor(
    () => {
      const modal = e.slack.modalOf(user);
      return modal && e.slack.callsOf('views.open').length > before ? modal : null;
    },
    10_000,
    'the schedule modal',
  );
  return modal!;
}

describe('Slack App Home and the schedule form, end to end', () => {
  it('the Home lists the schedules of my channels; a new schedule with an invalid cron shows the error on the field', async () => {
    e = await startErrand();
    const created = await e.app.schedules.create({
      channel: TEAM_CHANNEL,
      target: 'channel',
      conversationId: null,
      prompt: 'post the standup reminder',
      kind: 'interval',
      spec: '120',
      timezone: 'UTC',
      createdBy: ALICE,
    });
    if (!created.ok) throw new Error(created.error);
    await e.slack.openHome(ALICE);
    await waitFor(() => homeText(e!, ALICE).includes('post the standup reminder'), 10_000, 'the Home view');
    const home = e.slack.homeOf(ALICE)!;
    expect(homeText(e, ALICE)).toContain(scheduleActionId('pause', created.schedule.id));

    await e.slack.clickInView({ user: ALICE, viewId: home.id, actionId: scheduleActionId('new') });
    const modal = await openedModal(e, ALICE, 0);
    const { response } = await e.slack.submitView({
      user: ALICE,
      viewId: modal.id,
      values: { channel: CHANNEL, prompt: 'summarise the day', when: '61 9 * * *', timezone: 'UTC' },
    });
    expect(response?.response_action).toBe('errors');
    const errors = response?.errors as Record<string, string>;
    expect(Object.keys(errors)).toEqual(['when']);
    expect(errors.when).toMatch(/^Invalid cron "61 9 \* \* \*"/);
    expect(await e.app.schedules.list(TEAM_CHANNEL)).toHaveLength(1);
  });

  it('a schedule edited in the App Home fires at its new time, and the Home shows the change', async () => {
    e = await startErrand();
    const { clock, slack: s, model } = e;
    const created = await e.app.schedules.create({
      channel: TEAM_CHANNEL,
      target: 'channel',
      conversationId: null,
      prompt: 'check the build',
      kind: 'interval',
      spec: '600',
      timezone: 'UTC',
      createdBy: ALICE,
    });
    if (!created.ok) throw new Error(created.error);
    await s.openHome(ALICE);
    await waitFor(() => homeText(e!, ALICE).includes('check the build'), 10_000, 'the Home view');
    await s.clickInView({
      user: ALICE,
      viewId: s.homeOf(ALICE)!.id,
      actionId: scheduleActionId('edit', created.schedule.id),
    });
    const modal = await openedModal(e, ALICE, 0);
    expect(JSON.stringify(modal.view.blocks)).toContain('check the build');

    const at = new Date(clock.now() + 15 * 60_000).toISOString();
    const { response } = await s.submitView({
      user: ALICE,
      viewId: modal.id,
      values: { prompt: 'check the nightly build', when: at },
    });
    expect(response).toBeNull();
    await waitFor(() => homeText(e!, ALICE).includes('Updated schedule'), 10_000, 'the refreshed Home');
    expect(homeText(e, ALICE)).toContain('check the nightly build');

    model.reply({ text: 'The nightly build is green.' });
    clock.advance(14 * 60_000);
    await e.app.coordinator.idle();
    expect(s.messages(CHANNEL, null).some((m) => m.user === s.botUserId)).toBe(false);
    clock.advance(60_000 + 1000);
    const top = (await waitFor(
      () => s.messages(CHANNEL, null).find((m) => m.user === s.botUserId && m.text.includes('check the nightly build')),
      10_000,
      'the scheduled post',
    ))!;
    await waitFor(
      () => s.botTexts(CHANNEL, top.ts).includes('The nightly build is green.'),
      10_000,
      'the run in its thread',
    );
  });

  it('plain words are read by the model and shown back in the form before anything is saved', async () => {
    e = await startErrand();
    const { slack: s, model } = e;
    await s.openHome(ALICE);
    await waitFor(() => s.homeOf(ALICE), 10_000, 'the Home view');
    await s.clickInView({ user: ALICE, viewId: s.homeOf(ALICE)!.id, actionId: scheduleActionId('new') });
    const modal = await openedModal(e, ALICE, 0);
    model.reply({ text: '{"kind": "cron", "spec": "0 9 * * 1-5"}' });
    const first = await s.submitView({
      user: ALICE,
      viewId: modal.id,
      values: { channel: CHANNEL, prompt: 'post the agenda', when: 'every weekday at nine', timezone: 'Europe/Berlin' },
    });
    expect(first.response?.response_action).toBe('update');
    const shown = JSON.stringify(s.modalOf(ALICE)!.view.blocks);
    expect(shown).toContain('0 9 * * 1-5');
    expect(shown).toContain('every weekday at nine');
    expect(await e.app.schedules.list(TEAM_CHANNEL)).toHaveLength(0);
    expect(JSON.stringify(model.requests[0]!.messages)).toContain('every weekday at nine');

    const second = await s.submitView({ user: ALICE, viewId: modal.id });
    expect(second.response).toBeNull();
    const [saved] = await e.app.schedules.list(TEAM_CHANNEL);
    expect(saved).toMatchObject({
      kind: 'cron',
      spec: '0 9 * * 1-5',
      timezone: 'Europe/Berlin',
      prompt: 'post the agenda',
      createdBy: ALICE,
    });
  });

  it('Pause on the Home pauses the schedule and the Home offers Resume', async () => {
    e = await startErrand();
    const created = await e.app.schedules.create({
      channel: TEAM_CHANNEL,
      target: 'channel',
      conversationId: null,
      prompt: 'water the plants',
      kind: 'interval',
      spec: '60',
      timezone: 'UTC',
      createdBy: ALICE,
    });
    if (!created.ok) throw new Error(created.error);
    await e.slack.openHome(ALICE);
    await waitFor(() => homeText(e!, ALICE).includes('water the plants'), 10_000, 'the Home view');
    await e.slack.clickInView({
      user: ALICE,
      viewId: e.slack.homeOf(ALICE)!.id,
      actionId: scheduleActionId('pause', created.schedule.id),
    });
    await waitFor(
      () => homeText(e!, ALICE).includes(scheduleActionId('resume', created.schedule.id)),
      10_000,
      'Resume on the Home',
    );
    expect((await e.app.schedules.find(created.schedule.id))?.status).toBe('paused');
  });

  it('someone not in the channel sees no schedule buttons and cannot save a schedule there', async () => {
    e = await startErrand();
    const BOB = 'U0BOB0001';
    e.slack.memberships.set(BOB, ['C0RANDOM1']);
    const created = await e.app.schedules.create({
      channel: TEAM_CHANNEL,
      target: 'channel',
      conversationId: null,
      prompt: 'secret plans',
      kind: 'interval',
      spec: '60',
      timezone: 'UTC',
      createdBy: ALICE,
    });
    if (!created.ok) throw new Error(created.error);
    await e.slack.openHome(BOB);
    await waitFor(() => e!.slack.homeOf(BOB), 10_000, 'the Home view');
    expect(homeText(e, BOB)).not.toContain('secret plans');
    await e.slack.clickInView({ user: BOB, viewId: e.slack.homeOf(BOB)!.id, actionId: scheduleActionId('new') });
    const modal = await openedModal(e, BOB, 0);
    const { response } = await e.slack.submitView({
      user: BOB,
      viewId: modal.id,
      values: { channel: CHANNEL, prompt: 'x', when: '60', timezone: 'UTC' },
    });
    expect((response?.errors as Record<string, string>).channel).toContain('not in that channel');
    expect(await e.app.schedules.list(TEAM_CHANNEL)).toHaveLength(1);
  });
});

describe('/tasks on Slack', () => {
  it('carries a Stop button per running task, and the button stops it', async () => {
    e = await startErrand();
    const { slack: s, model } = e;
    model.reply({ toolCalls: [{ name: 'send_update', arguments: { text: 'Starting.' } }] }, { hang: true });
    const { ts } = await s.mention({ user: ALICE, channel: CHANNEL, text: 'do a long thing' });
    await waitFor(() => s.botTexts(CHANNEL, ts).includes('Starting.'), 10_000, 'the run to start');
    const command = await s.slashCommand({ command: '/tasks', user: ALICE, channel: CHANNEL });
    const reply = JSON.parse(command.body) as { blocks?: unknown[] };
    const stop = (JSON.stringify(reply.blocks ?? []).match(/errand:stop:[^"]+/) ?? [])[0];
    expect(stop).toBeDefined();
    await s.clickInReply({ user: ALICE, channel: CHANNEL, responseId: command.responseId, actionId: stop! });
    await waitFor(
      async () => (await e!.app.runs.active(`slack:${s.teamId}:${CHANNEL}:${ts}`)) === null,
      10_000,
      'the run to stop',
    );
  });
});
