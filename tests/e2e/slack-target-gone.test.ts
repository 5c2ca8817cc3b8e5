import { afterEach, describe, expect, it } from 'vitest';
import { runs, schedules } from '../../src/db/schema.js';
import { waitFor } from '../fakes/wait-for.js';
import { gate } from '../integration/harness.js';
import { startErrand, type Errand } from './slack-harness.js';
import { sqliteDb } from '../fakes/sqlite-db.js';

const CHANNEL = 'C0GENERAL';
const ALICE = 'U0ALICE01';

let e: Errand | null = null;
afterEach(async () => {
  await e?.close();
  e = null;
});

const onlyRun = (app: Errand['app']) => sqliteDb(app.store).select().from(runs).all()[0]!;
const scheduleRow = (app: Errand['app'], id: number) =>
  sqliteDb(app.store)
    .select()
    .from(schedules)
    .all()
    .find((r) => r.id === id)!;

describe('Slack: a channel that can no longer be posted to', () => {
  it('a run whose channel is archived mid-run stops at the failed post: no further model call, the reason recorded, the task failed', async () => {
    e = await startErrand();
    const { slack: s, model, app } = e;
    const step = gate();
    model.reply({
      text: 'Step one.',
      toolCalls: [{ name: 'send_update', arguments: { text: 'Halfway there.' } }],
      gate: step.promise,
    });
    const { ts } = await s.mention({ user: ALICE, channel: CHANNEL, text: 'do a long job' });
    await waitFor(() => model.requests.length === 1);
    s.archiveChannel(CHANNEL);
    step.open();
    await waitFor(() => onlyRun(app).status !== 'running', 10_000);
    await app.coordinator.idle();
    expect(model.requests).toHaveLength(1);
    const run = onlyRun(app);
    expect(run.status).toBe('failed');
    expect(run.error).toMatch(/is_archived/);
    const [task] = await app.tasks.list(`slack:${s.teamId}:${CHANNEL}:${ts}`);
    expect(task).toMatchObject({ status: 'failed' });
    expect(task!.failReason).toMatch(/can no longer be posted to.*is_archived/);
    expect(s.callsOf('chat.postMessage').filter((c) => String(c.args.text).includes('Halfway'))).toEqual([]);
  });

  it('a question for a channel the bot was removed from is not parked: the run ends instead of waiting for an answer nobody can give', async () => {
    e = await startErrand();
    const { slack: s, model, app } = e;
    const step = gate();
    model.reply({
      toolCalls: [{ name: 'ask_user', arguments: { question: 'Which format?', options: ['PDF', 'Markdown'] } }],
      gate: step.promise,
    });
    await s.mention({ user: ALICE, channel: CHANNEL, text: 'write the report' });
    await waitFor(() => model.requests.length === 1);
    s.removeBot(CHANNEL);
    step.open();
    await waitFor(() => !['running'].includes(onlyRun(app).status), 10_000);
    await app.coordinator.idle();
    const run = onlyRun(app);
    expect(run.status).toBe('failed');
    expect(run.question).toBeNull();
    expect(run.error).toMatch(/not_in_channel/);
    expect(model.requests).toHaveLength(1);
  });

  it('a channel schedule whose channel is gone shows ⚠️ with the reason in /schedules and pauses after 3 failures in a row', async () => {
    e = await startErrand();
    const { slack: s, app, clock } = e;
    const created = await app.schedules.create({
      channel: { platform: 'slack', workspace: s.teamId, channel: CHANNEL },
      target: 'channel',
      conversationId: null,
      prompt: 'post the daily digest',
      kind: 'interval',
      spec: '10',
      timezone: 'UTC',
      createdBy: ALICE,
    });
    if (!created.ok) throw new Error(created.error);
    const id = created.schedule.id;
    s.archiveChannel(CHANNEL);

    clock.advance(10 * 60_000);
    await waitFor(() => scheduleRow(app, id).consecutiveFailures === 1, 10_000);
    expect(scheduleRow(app, id)).toMatchObject({ status: 'active' });
    const listed = await s.slashCommand({ command: '/schedules', user: ALICE, channel: CHANNEL });
    expect(listed.body).toContain('⚠️');
    expect(listed.body).toContain('is_archived');

    clock.advance(10 * 60_000);
    await waitFor(() => scheduleRow(app, id).consecutiveFailures === 2, 10_000);
    clock.advance(10 * 60_000);
    await waitFor(() => scheduleRow(app, id).status === 'paused', 10_000);
    expect(scheduleRow(app, id)).toMatchObject({ consecutiveFailures: 3, nextRunAt: null });
    expect(scheduleRow(app, id).failReason).toMatch(/^Paused after 3 failed runs in a row\. Last: .*is_archived/);
    const paused = await s.slashCommand({ command: '/schedules', user: ALICE, channel: CHANNEL });
    expect(paused.body).toContain('Paused after 3 failed runs in a row');

    const attempts = s.callsOf('chat.postMessage').length;
    clock.advance(30 * 60_000);
    await app.coordinator.idle();
    expect(s.callsOf('chat.postMessage')).toHaveLength(attempts);
  });
});
