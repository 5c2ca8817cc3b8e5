import { describe, expect, it } from 'vitest';
import { CHANNEL, MINUTE, START, THREAD_ID, scheduleWorld, settle } from './schedule-fixtures.js';

async function create(
  world: ReturnType<typeof scheduleWorld>,
  kind: 'once' | 'cron' | 'interval',
  spec: string,
  extra: { timezone?: string; target?: 'channel' | 'thread' } = {},
) {
  const r = await world.service.create({
    channel: CHANNEL,
    target: extra.target ?? 'channel',
    conversationId: THREAD_ID,
    prompt: `run ${kind} ${spec}`,
    kind,
    spec,
    timezone: extra.timezone ?? 'UTC',
    createdBy: 'U1',
  });
  if (!r.ok) throw new Error(r.error);
  return r.schedule;
}

describe('firing', () => {
  it('fires a once schedule at its time, into a new channel thread, then completes it', async () => {
    const w = scheduleWorld();
    await w.scheduler.start(w.launcher);
    const s = await create(w, 'once', '2026-01-05T10:15');
    await w.clock.advanceSettled(75 * MINUTE - 1, () => w.scheduler.idle());
    expect(w.launcher.launches).toEqual([]);
    await w.clock.advanceSettled(1, () => w.scheduler.idle());
    await settle(w);
    expect(w.launcher.launches).toEqual([
      {
        via: 'channel',
        at: START + 75 * MINUTE,
        scheduleId: s.id,
        prompt: 'run once 2026-01-05T10:15',
        channel: CHANNEL,
      },
    ]);
    expect(await w.service.get(CHANNEL, s.id)).toMatchObject({
      ok: true,
      schedule: { status: 'completed', runCount: 1, lastRunAt: START + 75 * MINUTE, nextRunAt: null },
    });
    expect(w.scheduler.armedCount).toBe(0);
  });

  it('fires a cron schedule in its timezone and queues a thread target in its conversation', async () => {
    const w = scheduleWorld();
    await w.scheduler.start(w.launcher);
    const s = await create(w, 'cron', '0 9 * * 1-5', { timezone: 'Europe/Berlin', target: 'thread' });
    expect(s.nextRunAt).toBe(Date.parse('2026-01-06T08:00:00Z'));
    await w.clock.advanceSettled(5 * 24 * 60 * MINUTE, () => w.scheduler.idle());
    await settle(w);
    expect(w.launcher.launches.map((l) => new Date(l.at).toISOString())).toEqual([
      '2026-01-06T08:00:00.000Z',
      '2026-01-07T08:00:00.000Z',
      '2026-01-08T08:00:00.000Z',
      '2026-01-09T08:00:00.000Z',
    ]);
    expect(w.launcher.launches.every((l) => l.via === 'thread' && l.conversationId === THREAD_ID)).toBe(true);
    expect(await w.service.get(CHANNEL, s.id)).toMatchObject({
      ok: true,
      schedule: { status: 'active', runCount: 4, nextRunAt: Date.parse('2026-01-12T08:00:00Z') },
    });
  });

  it('keeps a New York cron at 09:00 local through the March and November changes', async () => {
    const w = scheduleWorld();
    await w.clock.advanceSettled(Date.parse('2026-03-06T15:00:00Z') - START, () => w.scheduler.idle());
    await w.scheduler.start(w.launcher);
    await create(w, 'cron', '0 9 * * *', { timezone: 'America/New_York' });
    await w.clock.advanceSettled(4 * 24 * 60 * MINUTE, () => w.scheduler.idle());
    await settle(w);
    expect(w.launcher.launches.map((l) => new Date(l.at).toISOString())).toEqual([
      '2026-03-07T14:00:00.000Z',
      '2026-03-08T13:00:00.000Z',
      '2026-03-09T13:00:00.000Z',
      '2026-03-10T13:00:00.000Z',
    ]);
    w.launcher.launches.length = 0;
    await w.clock.advanceSettled(Date.parse('2026-10-31T15:00:00Z') - w.clock.now(), () => w.scheduler.idle());
    await settle(w);
    w.launcher.launches.length = 0;
    await w.clock.advanceSettled(2 * 24 * 60 * MINUTE, () => w.scheduler.idle());
    await settle(w);
    expect(w.launcher.launches.map((l) => new Date(l.at).toISOString())).toEqual([
      '2026-11-01T14:00:00.000Z',
      '2026-11-02T14:00:00.000Z',
    ]);
  });

  it('fires an interval on its anchor grid, without drift, over 100 fires', async () => {
    const w = scheduleWorld();
    await w.scheduler.start(w.launcher);
    const s = await create(w, 'interval', '7');
    for (let i = 0; i < 100; i++) {
      await w.clock.advanceSettled(7 * MINUTE - 1 + (i % 3), () => w.scheduler.idle());
      await settle(w);
    }
    await w.clock.advanceSettled(1, () => w.scheduler.idle());
    await settle(w);
    expect(w.launcher.launches).toHaveLength(100);
    expect(w.launcher.launches.map((l) => l.at)).toEqual(
      Array.from({ length: 100 }, (_, k) => START + (k + 1) * 7 * MINUTE),
    );
    expect(await w.service.get(CHANNEL, s.id)).toMatchObject({
      ok: true,
      schedule: { runCount: 100, nextRunAt: START + 101 * 7 * MINUTE },
    });
  });

  it('records a failed launch; a recurring schedule stays armed, a once schedule becomes error', async () => {
    const w = scheduleWorld();
    await w.scheduler.start(w.launcher);
    const rec = await create(w, 'interval', '10');
    const one = await create(w, 'once', '2026-01-05T09:10');
    w.launcher.failWith = 'channel not found';
    await w.clock.advanceSettled(10 * MINUTE, () => w.scheduler.idle());
    await settle(w);
    expect(w.launcher.launches).toHaveLength(2);
    const r = await w.service.get(CHANNEL, rec.id);
    expect(r).toMatchObject({ ok: true, schedule: { status: 'active', nextRunAt: START + 20 * MINUTE } });
    expect(r.ok && r.schedule.failReason).toMatch(/could not start: channel not found/);
    expect(await w.service.get(CHANNEL, one.id)).toMatchObject({ ok: true, schedule: { status: 'error' } });
    w.launcher.failWith = null;
    await w.clock.advanceSettled(10 * MINUTE, () => w.scheduler.idle());
    await settle(w);
    expect(await w.service.get(CHANNEL, rec.id)).toMatchObject({
      ok: true,
      schedule: { status: 'active', runCount: 2, failReason: null },
    });
  });
});

describe('a large batch due at the same instant', () => {
  it('fires every schedule once and reschedules each to its own next time', async () => {
    const w = scheduleWorld({ MAX_SCHEDULES_PER_CHANNEL: '500' });
    await w.scheduler.start(w.launcher);
    const ids: number[] = [];
    for (let i = 0; i < 60; i++)
      ids.push(
        (
          await create(w, 'cron', `${i % 30} 10 * * ${i < 20 ? '*' : i < 40 ? '1-5' : '0'}`, {
            timezone: 'America/New_York',
          })
        ).id,
      );
    await w.clock.advanceSettled(24 * 60 * MINUTE, () => w.scheduler.idle());
    await settle(w);
    expect(w.launcher.launches).toHaveLength(40);
    expect(new Set(w.launcher.launches.map((l) => l.scheduleId)).size).toBe(40);
    for (const id of ids) {
      const r = await w.service.get(CHANNEL, id);
      expect(r.ok && r.schedule.nextRunAt! > w.clock.now()).toBe(true);
    }
    expect(w.scheduler.armedCount).toBe(60);
  });
});

describe('pause, resume, delete', () => {
  it('a paused schedule does not fire; resumed, it goes on from now on its grid', async () => {
    const w = scheduleWorld();
    await w.scheduler.start(w.launcher);
    const s = await create(w, 'interval', '10');
    expect(await w.service.pause(CHANNEL, s.id)).toMatchObject({
      ok: true,
      schedule: { status: 'paused', nextRunAt: null },
    });
    expect(w.scheduler.armedCount).toBe(0);
    await w.clock.advanceSettled(35 * MINUTE, () => w.scheduler.idle());
    await settle(w);
    expect(w.launcher.launches).toEqual([]);
    expect(await w.service.resume(CHANNEL, s.id)).toMatchObject({
      ok: true,
      schedule: { status: 'active', nextRunAt: START + 40 * MINUTE },
    });
    await w.clock.advanceSettled(5 * MINUTE, () => w.scheduler.idle());
    await settle(w);
    expect(w.launcher.launches.map((l) => l.at)).toEqual([START + 40 * MINUTE]);
  });

  it('a deleted schedule is disarmed and gone', async () => {
    const w = scheduleWorld();
    await w.scheduler.start(w.launcher);
    const s = await create(w, 'interval', '10');
    expect((await w.service.delete(CHANNEL, s.id)).ok).toBe(true);
    await w.clock.advanceSettled(60 * MINUTE, () => w.scheduler.idle());
    await settle(w);
    expect(w.launcher.launches).toEqual([]);
    expect(await w.service.list(CHANNEL)).toEqual([]);
    expect(w.clock.pendingTimers()).toBe(0);
  });

  it('explains why pausing, resuming or deleting cannot be done', async () => {
    const w = scheduleWorld();
    await w.scheduler.start(w.launcher);
    const s = await create(w, 'interval', '10');
    const other = { ...CHANNEL, channel: 'C2' };
    expect(await w.service.pause(other, s.id)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/no schedule #\d+ in this channel/),
    });
    expect(await w.service.delete(CHANNEL, 999)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/no schedule #999/),
    });
    expect(await w.service.resume(CHANNEL, s.id)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/already active/),
    });
    await w.service.pause(CHANNEL, s.id);
    expect(await w.service.pause(CHANNEL, s.id)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/is paused, not active/),
    });
  });

  it('a once schedule whose time passed while paused cannot be resumed', async () => {
    const w = scheduleWorld();
    await w.scheduler.start(w.launcher);
    const s = await create(w, 'once', '2026-01-05T09:30');
    await w.service.pause(CHANNEL, s.id);
    await w.clock.advanceSettled(60 * MINUTE, () => w.scheduler.idle());
    expect(await w.service.resume(CHANNEL, s.id)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/no future fire time/),
    });
  });
});

describe('a schedule changed while its fire is being recorded', () => {
  it('stays paused when paused between its launch and its rescheduling', async () => {
    const w = scheduleWorld();
    let pauseOnLaunch: number | null = null;
    const launcher = {
      queueInConversation: w.launcher.queueInConversation.bind(w.launcher),
      startInChannel: async (...args: Parameters<typeof w.launcher.startInChannel>) => {
        if (pauseOnLaunch !== null) await w.service.pause(CHANNEL, pauseOnLaunch);
        return w.launcher.startInChannel(...args);
      },
    };
    await w.scheduler.start(launcher);
    const s = await create(w, 'interval', '10');
    pauseOnLaunch = s.id;
    await w.clock.advanceSettled(10 * MINUTE, () => w.scheduler.idle());
    await settle(w);
    expect(await w.service.get(CHANNEL, s.id)).toMatchObject({
      ok: true,
      schedule: { status: 'paused', nextRunAt: null, runCount: 1 },
    });
    await w.clock.advanceSettled(60 * MINUTE, () => w.scheduler.idle());
    expect(w.launcher.launches).toHaveLength(1);
  });
});
