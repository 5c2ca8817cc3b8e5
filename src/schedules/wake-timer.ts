import { createRequire } from 'node:module';
import type schedule from 'node-schedule';
import { systemClock, type Clock } from '../clock.js';

/** The one real timer the scheduler needs: "wake me at `at`" (replacing any earlier request). */
export interface WakeTimer {
  set(at: number, fn: () => void): void;
  clear(): void;
}

/** setTimeout caps delays at 2^31-1 ms (~24.8 days); longer waits are taken in hops. */
const MAX_DELAY_MS = 2_147_483_647;

/** A WakeTimer on an injected Clock, so tests drive schedules with a fake clock. */
export function clockWakeTimer(clock: Clock): WakeTimer {
  let handle: unknown = null;
  const clear = () => {
    if (handle !== null) clock.clearTimer(handle);
    handle = null;
  };
  const set = (at: number, fn: () => void): void => {
    clear();
    const delay = at - clock.now();
    handle =
      delay > MAX_DELAY_MS ? clock.setTimer(() => set(at, fn), MAX_DELAY_MS) : clock.setTimer(fn, Math.max(0, delay));
  };
  return { set, clear };
}

const requireLazily = createRequire(import.meta.url);
let nodeSchedule: typeof schedule | null = null;
/** node-schedule (with cron-parser) is loaded when the first schedule is armed, so a bot without schedules never carries it. */
function scheduler(): typeof schedule {
  return (nodeSchedule ??= requireLazily('node-schedule') as typeof schedule);
}

/** The production WakeTimer: a node-schedule job at a Date (it handles long waits itself). */
export function nodeScheduleWakeTimer(): WakeTimer {
  let job: schedule.Job | null = null;
  let immediate: NodeJS.Immediate | null = null;
  const clear = () => {
    job?.cancel();
    job = null;
    if (immediate) clearImmediate(immediate);
    immediate = null;
  };
  return {
    clear,
    set(at, fn) {
      clear();
      if (at > Date.now()) job = scheduler().scheduleJob(new Date(at), fn);
      if (!job) immediate = setImmediate(fn);
    },
  };
}

/** node-schedule for the real clock; the injected clock's timers for any other (tests, benchmarks). */
export function wakeTimerFor(clock: Clock): WakeTimer {
  return clock === systemClock ? nodeScheduleWakeTimer() : clockWakeTimer(clock);
}
