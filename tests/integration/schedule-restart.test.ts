import { describe, expect, it } from 'vitest';
import { CHANNEL, MINUTE, START, THREAD_ID, scheduleWorld, settle, type ScheduleWorld } from './schedule-fixtures.js';

async function create(w: ScheduleWorld, kind: 'once' | 'cron' | 'interval', spec: string) {
  const r = await w.service.create({
    channel: CHANNEL,
    target: 'channel',
    conversationId: THREAD_ID,
    prompt: `${kind} ${spec}`,
    kind,
    spec,
    timezone: 'UTC',
    createdBy: 'U1',
  });
  if (!r.ok) throw new Error(r.error);
  return r.schedule;
}

/** Stops the first process, lets `downMinutes` pass with nothing running, and starts a second one. */
async function downFor(w: ScheduleWorld, downMinutes: number): Promise<ScheduleWorld> {
  await w.scheduler.stop();
  await w.clock.advanceSettled(downMinutes * MINUTE, () => w.scheduler.idle());
  const next = w.restart();
  return next;
}

describe('restart', () => {
  it('re-arms every active schedule from the database', async () => {
    const w = scheduleWorld();
    await w.scheduler.start(w.launcher);
    await create(w, 'interval', '30');
    await create(w, 'cron', '0 18 * * *');
    const paused = await create(w, 'interval', '10');
    await w.service.pause(CHANNEL, paused.id);
    const w2 = await downFor(w, 1);
    expect(await w2.scheduler.start(w2.launcher)).toEqual({ armed: 2, overdue: 0 });
    await w2.clock.advanceSettled(3 * 60 * MINUTE, () => w2.scheduler.idle());
    await settle(w2);
    expect(w2.launcher.launches.map((l) => (l.at - START) / MINUTE)).toEqual([30, 60, 90, 120, 150, 180]);
    expect(w.launcher.launches).toEqual([]);
  });

  it('fires a schedule missed while down once, not once per missed occurrence, and keeps its grid', async () => {
    const w = scheduleWorld();
    await w.scheduler.start(w.launcher);
    const s = await create(w, 'interval', '10');
    const w2 = await downFor(w, 45);
    expect(await w2.scheduler.start(w2.launcher)).toEqual({ armed: 1, overdue: 1 });
    await w2.clock.advanceSettled(0, () => w2.scheduler.idle());
    await settle(w2);
    expect(w2.launcher.launches.map((l) => (l.at - START) / MINUTE)).toEqual([45]);
    expect(await w2.service.get(CHANNEL, s.id)).toMatchObject({
      ok: true,
      schedule: { runCount: 1, lastRunAt: START + 45 * MINUTE, nextRunAt: START + 50 * MINUTE },
    });
    await w2.clock.advanceSettled(5 * MINUTE, () => w2.scheduler.idle());
    await settle(w2);
    expect(w2.launcher.launches.map((l) => (l.at - START) / MINUTE)).toEqual([45, 50]);
  });

  it('fires a missed once schedule after restart and completes it', async () => {
    const w = scheduleWorld();
    await w.scheduler.start(w.launcher);
    const s = await create(w, 'once', '2026-01-05T09:20');
    const w2 = await downFor(w, 30);
    await w2.scheduler.start(w2.launcher);
    await w2.clock.advanceSettled(0, () => w2.scheduler.idle());
    await settle(w2);
    expect(w2.launcher.launches).toHaveLength(1);
    expect(await w2.service.get(CHANNEL, s.id)).toMatchObject({
      ok: true,
      schedule: { status: 'completed', runCount: 1 },
    });
  });

  it('skips a run missed by more than the grace, records why, and moves next_run_at forward', async () => {
    const w = scheduleWorld({ MISSED_GRACE_MINUTES: '60' });
    await w.scheduler.start(w.launcher);
    const daily = await create(w, 'cron', '0 10 * * *');
    const once = await create(w, 'once', '2026-01-05T09:30');
    const w2 = await downFor(w, 3 * 60);
    await w2.scheduler.start(w2.launcher);
    await w2.clock.advanceSettled(0, () => w2.scheduler.idle());
    await settle(w2);
    expect(w2.launcher.launches).toEqual([]);
    const d = await w2.service.get(CHANNEL, daily.id);
    expect(d).toMatchObject({
      ok: true,
      schedule: { status: 'active', runCount: 0, nextRunAt: Date.parse('2026-01-06T10:00:00Z') },
    });
    expect(d.ok && d.schedule.failReason).toMatch(
      /Skipped the run due Mon, 5 Jan 2026, 10:00 \(UTC\): it was 120 min late.*60 min grace/,
    );
    const o = await w2.service.get(CHANNEL, once.id);
    expect(o).toMatchObject({ ok: true, schedule: { status: 'error', nextRunAt: null } });
    expect(o.ok && o.schedule.failReason).toMatch(/Skipped the run due/);
    await w2.clock.advanceSettled(24 * 60 * MINUTE, () => w2.scheduler.idle());
    await settle(w2);
    expect(w2.launcher.launches.map((l) => new Date(l.at).toISOString())).toEqual(['2026-01-06T10:00:00.000Z']);
  });

  it('a schedule caught between its launch and its rescheduling is rescheduled from now, not fired twice', async () => {
    const w = scheduleWorld();
    const s = await create(w, 'interval', '10');
    w.db.$client.prepare('update schedules set next_run_at = null, run_count = 1 where id = ?').run(s.id);
    await w.clock.advanceSettled(25 * MINUTE, () => w.scheduler.idle());
    expect(await w.scheduler.start(w.launcher)).toEqual({ armed: 1, overdue: 0 });
    expect(await w.service.get(CHANNEL, s.id)).toMatchObject({
      ok: true,
      schedule: { nextRunAt: START + 30 * MINUTE },
    });
    await w.clock.advanceSettled(5 * MINUTE, () => w.scheduler.idle());
    await settle(w);
    expect(w.launcher.launches.map((l) => (l.at - START) / MINUTE)).toEqual([30]);
  });

  it('stop disarms everything', async () => {
    const w = scheduleWorld();
    await w.scheduler.start(w.launcher);
    await create(w, 'interval', '10');
    await w.scheduler.stop();
    expect(w.clock.pendingTimers()).toBe(0);
    await w.clock.advanceSettled(60 * MINUTE, () => w.scheduler.idle());
    expect(w.launcher.launches).toEqual([]);
  });
});
