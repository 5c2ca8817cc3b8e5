import { describe, expect, it } from 'vitest';
import { clockWakeTimer, nodeScheduleWakeTimer } from '../../src/schedules/scheduler.js';
import { FakeClock } from '../fakes/fake-clock.js';

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('wake timers', () => {
  it('the clock timer waits longer than setTimeout allows in hops and fires exactly on time', () => {
    const clock = new FakeClock();
    const t = clockWakeTimer(clock);
    const at = clock.now() + 40 * 86_400_000;
    const fired: number[] = [];
    t.set(at, () => fired.push(clock.now()));
    clock.advance(30 * 86_400_000);
    expect(fired).toEqual([]);
    clock.advance(10 * 86_400_000);
    expect(fired).toEqual([at]);
  });

  it('the clock timer keeps only the latest request', () => {
    const clock = new FakeClock();
    const t = clockWakeTimer(clock);
    const fired: string[] = [];
    t.set(clock.now() + 100, () => fired.push('first'));
    t.set(clock.now() + 50, () => fired.push('second'));
    clock.advance(200);
    expect(fired).toEqual(['second']);
    t.set(clock.now() + 10, () => fired.push('third'));
    t.clear();
    clock.advance(100);
    expect(fired).toEqual(['second']);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('the node-schedule timer fires at a real date, at once for a past one, and not after clear', async () => {
    const t = nodeScheduleWakeTimer();
    const fired: string[] = [];
    const start = Date.now();
    t.set(start + 30, () => fired.push(`on time +${Date.now() - start >= 29 ? 'ok' : 'early'}`));
    await wait(80);
    t.set(start - 1_000, () => fired.push('past'));
    await wait(5);
    t.set(Date.now() + 20, () => fired.push('cleared'));
    t.clear();
    await wait(50);
    expect(fired).toEqual(['on time +ok', 'past']);
  });
});
