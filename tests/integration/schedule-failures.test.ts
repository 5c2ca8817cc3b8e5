import { describe, expect, it } from 'vitest';
import { TargetGoneError } from '../../src/errors.js';
import { CHANNEL, MINUTE, scheduleWorld, settle } from './schedule-fixtures.js';

async function everyTenMinutes(w: ReturnType<typeof scheduleWorld>) {
  const r = await w.service.create({
    channel: CHANNEL,
    target: 'channel',
    conversationId: null,
    prompt: 'digest',
    kind: 'interval',
    spec: '10',
    timezone: 'UTC',
    createdBy: 'U1',
  });
  if (!r.ok) throw new Error(r.error);
  return r.schedule.id;
}

async function fire(w: ReturnType<typeof scheduleWorld>, times: number): Promise<void> {
  for (let i = 0; i < times; i++) {
    await w.clock.advanceSettled(10 * MINUTE, () => w.scheduler.idle());
    await settle(w);
  }
}

const row = async (w: ReturnType<typeof scheduleWorld>, id: number) => {
  const r = await w.service.get(CHANNEL, id);
  if (!r.ok) throw new Error(r.error);
  return r.schedule;
};

describe('schedules whose target is gone', () => {
  it('are paused after 3 launches in a row found the channel gone, and fire no more', async () => {
    const w = scheduleWorld();
    await w.scheduler.start(w.launcher);
    const id = await everyTenMinutes(w);
    w.launcher.failWith = new TargetGoneError('Slack chat.postMessage failed (is_archived)', 'is_archived');
    await fire(w, 2);
    expect(await row(w, id)).toMatchObject({ status: 'active', consecutiveFailures: 2 });
    await fire(w, 1);
    expect(await row(w, id)).toMatchObject({ status: 'paused', consecutiveFailures: 3, nextRunAt: null });
    expect((await row(w, id)).failReason).toMatch(
      /^Paused after 3 failed runs in a row\. Last: The run at .* could not start: .*is_archived/,
    );
    await fire(w, 3);
    expect(w.launcher.launches).toHaveLength(3);
  });

  it('keep firing through ordinary launch failures (an outage passes by itself)', async () => {
    const w = scheduleWorld();
    await w.scheduler.start(w.launcher);
    const id = await everyTenMinutes(w);
    w.launcher.failWith = 'Slack chat.postMessage failed (internal_error)';
    await fire(w, 4);
    expect(await row(w, id)).toMatchObject({ status: 'active', consecutiveFailures: 0 });
    expect((await row(w, id)).failReason).toMatch(/internal_error/);
  });

  it('start counting again after a launch that went through, and after a resume', async () => {
    const w = scheduleWorld();
    await w.scheduler.start(w.launcher);
    const id = await everyTenMinutes(w);
    w.launcher.failWith = new TargetGoneError('gone', 'is_archived');
    await fire(w, 2);
    w.launcher.failWith = null;
    await fire(w, 1);
    expect(await row(w, id)).toMatchObject({ status: 'active', consecutiveFailures: 0, failReason: null });
    w.launcher.failWith = new TargetGoneError('gone', 'is_archived');
    await fire(w, 3);
    expect(await row(w, id)).toMatchObject({ status: 'paused' });
    expect(await w.service.resume(CHANNEL, id)).toMatchObject({
      ok: true,
      schedule: { status: 'active', consecutiveFailures: 0, failReason: null },
    });
  });
});
