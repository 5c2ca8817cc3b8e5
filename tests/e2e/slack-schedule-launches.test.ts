import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { errandFileEnv } from '../fixtures/errand-file.js';
import { waitFor } from '../fakes/wait-for.js';
import { sqliteDb } from '../fakes/sqlite-db.js';
import { texts } from './slack-harness.js';
import { startRestartableSlackErrand, type RestartableSlackErrand } from './slack-restart-harness.js';

/*
 * A schedule's prompt is never lost (DESIGN.md "Scheduled prompts"): the fire and the launch of its run are kept
 * together, so a post failing for a moment, a stop or a restart in between only delays the run.
 */

const CHANNEL = 'C0GENERAL';
const ALICE = 'U0ALICE01';
const BOB = 'U0BOB0001';
const ADMIN = 'U0ADMIN01';

let e: RestartableSlackErrand | null = null;
afterEach(async () => {
  await e?.close();
  e = null;
});

/** A one-off channel schedule of Alice's, due in five minutes. */
async function onceInFiveMinutes(errand: RestartableSlackErrand, prompt: string): Promise<number> {
  const at = new Date(errand.clock.now() + 5 * 60_000).toISOString();
  const r = await errand.app().schedules.create({
    channel: { platform: 'slack', workspace: errand.slack.teamId, channel: CHANNEL },
    target: 'channel',
    conversationId: null,
    prompt,
    kind: 'once',
    spec: at,
    timezone: 'UTC',
    createdBy: ALICE,
  });
  if (!r.ok) throw new Error(r.error);
  return r.schedule.id;
}

const notes = (errand: RestartableSlackErrand, prompt: string) =>
  errand.slack.messages(CHANNEL, null).filter((m) => m.user === errand.slack.botUserId && m.text.includes(prompt));

describe('a scheduled prompt survives a failing post and a restart (Slack, end to end)', () => {
  it('Errand stopped while the channel post is failing: after the restart the post, its thread and the run all happen, once; the one-off is not errored', async () => {
    e = await startRestartableSlackErrand();
    const id = await onceInFiveMinutes(e, 'post the weekly digest');
    e.model.reply({ text: 'Here is the weekly digest.' });
    // Slack fails the post for a moment: the outbox keeps it and would try again in a second.
    e.slack.failNext('chat.postMessage', { error: 'internal_error' });
    e.clock.advance(5 * 60_000 + 1000);
    await waitFor(
      () => e!.slack.callsOf('chat.postMessage').some((c) => c.error === 'internal_error'),
      10_000,
      'the failed post',
    );
    await e.stop();

    await e.start();
    // The outbox tries the post again once its backoff (a second) has passed, as it would have before the stop.
    e.clock.advance(2000);
    const note = (await waitFor(() => notes(e!, 'post the weekly digest')[0], 15_000, 'the post after the restart'))!;
    await waitFor(
      () => texts(e!.slack, note.ts).includes('Here is the weekly digest.'),
      15_000,
      'the run in its thread',
    );
    await e.app().coordinator.idle();
    expect(notes(e, 'post the weekly digest')).toHaveLength(1);
    expect(e.model.requests).toHaveLength(1);
    expect(await e.app().schedules.find(id)).toMatchObject({ status: 'completed', runCount: 1, failReason: null });
    const launches = sqliteDb(e.app().store)
      .$client.prepare('select status from schedule_launches where schedule_id = ?')
      .all(id);
    expect(launches).toEqual([{ status: 'started' }]);
  });

  it('a post that keeps failing past the outbox’s tries leaves the launch pending: the one-off says it will try again, and the run happens on the retry', async () => {
    e = await startRestartableSlackErrand();
    const id = await onceInFiveMinutes(e, 'post the sales report');
    e.model.reply({ text: 'Here is the sales report.' });
    for (let i = 0; i < 5; i++) e.slack.failNext('chat.postMessage', { error: 'internal_error' });
    e.clock.advance(5 * 60_000 + 1000);
    // The outbox tries five times (1 s, 2 s, 4 s, 8 s apart) and gives up: time moves on until each try was made.
    const failed = () => e!.slack.callsOf('chat.postMessage').filter((c) => c.error === 'internal_error').length;
    await waitFor(() => failed() === 1, 10_000, 'the first failed post');
    for (let i = 2; i <= 5; i++) {
      await waitFor(() => failed() >= i || (e!.clock.advance(1000), false), 20_000, `failed post ${i}`);
    }
    const waiting = await waitFor(
      async () => {
        const row = await e!.app().schedules.find(id);
        return row?.failReason?.includes('trying again') ? row : null;
      },
      10_000,
      'the schedule to say it tries again',
    );
    expect(waiting).toMatchObject({ status: 'completed' });
    expect(notes(e, 'post the sales report')).toEqual([]);

    e.clock.advance(60_000);
    const note = (await waitFor(() => notes(e!, 'post the sales report')[0], 15_000, 'the post on the retry'))!;
    await waitFor(
      () => texts(e!.slack, note.ts).includes('Here is the sales report.'),
      15_000,
      'the run in its thread',
    );
    await e.app().coordinator.idle();
    expect(await e.app().schedules.find(id)).toMatchObject({ status: 'completed', failReason: null });
  });
});

describe('a launch that can never start', () => {
  it('a thread schedule whose conversation no longer exists fails for good at once: the one-off errors with the reason, nothing is retried', async () => {
    e = await startRestartableSlackErrand();
    const at = new Date(e.clock.now() + 5 * 60_000).toISOString();
    const r = await e.app().schedules.create({
      channel: { platform: 'slack', workspace: e.slack.teamId, channel: CHANNEL },
      target: 'thread',
      conversationId: `slack:${e.slack.teamId}:${CHANNEL}:1700000000.000100`,
      prompt: 'follow up',
      kind: 'once',
      spec: at,
      timezone: 'UTC',
      createdBy: ALICE,
    });
    if (!r.ok) throw new Error(r.error);
    e.clock.advance(5 * 60_000 + 1000);
    const errored = await waitFor(
      async () => {
        const row = await e!.app().schedules.find(r.schedule.id);
        return row?.status === 'error' ? row : null;
      },
      10_000,
      'the one-off to error',
    );
    expect(errored!.failReason).toMatch(/could not start: the conversation .* no longer exists/);
    expect(sqliteDb(e.app().store).$client.prepare('select status from schedule_launches').all()).toEqual([
      { status: 'failed' },
    ]);
    e.clock.advance(60 * 60_000);
    await e.app().coordinator.idle();
    expect(e.model.requests).toEqual([]);
  });
});

describe('a schedule runs with its creator’s rights as they are when it fires (Slack, end to end)', () => {
  it('its creator removed from access.users: the schedule pauses without posting or running, and its creator and the admins are told privately', async () => {
    const env = errandFileEnv({ access: { users: [`slack:${ALICE}`, `slack:${BOB}`], admins: [`slack:${ADMIN}`] } });
    e = await startRestartableSlackErrand({ env });
    const r = await e.app().schedules.create({
      channel: { platform: 'slack', workspace: e.slack.teamId, channel: CHANNEL },
      target: 'channel',
      conversationId: null,
      prompt: 'summarise the incidents channel',
      kind: 'interval',
      spec: '60',
      timezone: 'UTC',
      createdBy: ALICE,
    });
    if (!r.ok) throw new Error(r.error);
    const id = r.schedule.id;
    // The operator takes Alice off the list (the configuration is read again at the next start).
    await e.stop();
    writeFileSync(
      env.ERRAND_CONFIG,
      JSON.stringify({ access: { users: [`slack:${BOB}`], admins: [`slack:${ADMIN}`] } }),
    );
    await e.start();

    e.clock.advance(60 * 60_000 + 1000);
    const paused = await waitFor(
      async () => {
        const row = await e!.app().schedules.find(id);
        return row?.status === 'paused' ? row : null;
      },
      10_000,
      'the schedule to pause',
    );
    expect(paused).toMatchObject({ nextRunAt: null, runCount: 1 });
    expect(paused!.failReason).toMatch(new RegExp(`^Paused at .*: its creator <@${ALICE}> may no longer use Errand`));
    const toAlice = await waitFor(
      () => e!.slack.ephemerals.find((x) => x.user === ALICE),
      10_000,
      'the notice to Alice',
    );
    expect(toAlice).toMatchObject({ channel: CHANNEL });
    expect(toAlice!.text).toMatch(
      new RegExp(`^⏸️ Your schedule #${id} \\(“summarise the incidents channel”\\) is paused and did not run`),
    );
    const toAdmin = await waitFor(
      () => e!.slack.ephemerals.find((x) => x.user === ADMIN),
      10_000,
      'the notice to the admin',
    );
    expect(toAdmin!.text).toContain(`of <@${ALICE}>`);
    expect(e.slack.ephemerals.filter((x) => x.user === BOB)).toEqual([]);
    await e.app().coordinator.idle();
    expect(notes(e, 'summarise the incidents channel')).toEqual([]);
    expect(e.model.requests).toEqual([]);
    // Paused, it fires no more.
    e.clock.advance(2 * 60 * 60_000);
    await e.app().coordinator.idle();
    expect((await e.app().schedules.find(id))?.runCount).toBe(1);
  });
});
