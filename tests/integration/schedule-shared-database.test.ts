import { describe, expect, it } from 'vitest';
import { CHANNEL, MINUTE, THREAD_ID, scheduleWorld, type ScheduleWorld } from './schedule-fixtures.js';

/** Two scheduling stacks over one database: two processes armed with the same schedules. */
async function twoProcesses(): Promise<{ a: ScheduleWorld; b: ScheduleWorld; idle: () => Promise<void> }> {
  const a = scheduleWorld();
  await a.scheduler.start(a.launcher);
  const created = await a.service.create({
    channel: CHANNEL,
    target: 'channel',
    conversationId: THREAD_ID,
    prompt: 'report',
    kind: 'interval',
    spec: '7',
    timezone: 'UTC',
    createdBy: 'U1',
  });
  if (!created.ok) throw new Error(created.error);
  const b = a.restart();
  await b.scheduler.start(b.launcher);
  return { a, b, idle: async () => void (await Promise.all([a.scheduler.idle(), b.scheduler.idle()])) };
}

describe('a schedule armed in two processes sharing the database', () => {
  it('fires once per occurrence, and both stay armed for the next one', async () => {
    const { a, b, idle } = await twoProcesses();
    expect([a.scheduler.armedCount, b.scheduler.armedCount]).toEqual([1, 1]);
    for (let fire = 1; fire <= 3; fire++) {
      await a.clock.advanceSettled(7 * MINUTE, idle);
      await a.clock.advanceSettled(MINUTE, idle);
      expect(a.launcher.launches.length + b.launcher.launches.length, `launches after occurrence ${fire}`).toBe(fire);
      expect([a.scheduler.armedCount, b.scheduler.armedCount], `armed after occurrence ${fire}`).toEqual([1, 1]);
    }
  });

  it('keeps firing from the survivor when the process that won the last fire is gone', async () => {
    const { a, b, idle } = await twoProcesses();
    await a.clock.advanceSettled(8 * MINUTE, idle);
    const [winner, survivor] = a.launcher.launches.length === 1 ? [a, b] : [b, a];
    expect(winner.launcher.launches).toHaveLength(1);
    await winner.scheduler.stop();
    await a.clock.advanceSettled(7 * MINUTE, idle);
    expect(survivor.launcher.launches).toHaveLength(1);
    expect(winner.launcher.launches).toHaveLength(1);
  });
});
