import type { Clock } from '../../src/clock.js';

/** A clock that moves only when told; timers fire in time order as it advances. */
export class FakeClock implements Clock {
  private current: number;
  private seq = 0;
  private readonly timers = new Map<number, { at: number; fn: () => void }>();

  constructor(start = Date.UTC(2026, 0, 5, 9, 0, 0)) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimer(fn: () => void, ms: number): unknown {
    const id = ++this.seq;
    this.timers.set(id, { at: this.current + Math.max(0, ms), fn });
    return id;
  }

  clearTimer(handle: unknown): void {
    this.timers.delete(handle as number);
  }

  /** Removes the earliest timer due by `target`, sets the time to its moment and returns it; null when none is due. */
  private takeDue(target: number): (() => void) | null {
    let next: [number, { at: number; fn: () => void }] | null = null;
    for (const entry of this.timers)
      if (entry[1].at <= target && (next === null || entry[1].at < next[1].at)) next = entry;
    if (!next) return null;
    this.timers.delete(next[0]);
    this.current = next[1].at;
    return next[1].fn;
  }

  /** Moves time forward, firing every timer that falls due, in order. */
  advance(ms: number): void {
    const target = this.current + ms;
    for (let fire = this.takeDue(target); fire; fire = this.takeDue(target)) fire();
    this.current = target;
  }

  /**
   * As `advance`, but after each timer fires waits for `settled` (e.g. the scheduler's `idle`), so
   * asynchronous work a timer starts (and the timers it sets) is done before time moves on.
   */
  async advanceSettled(ms: number, settled: () => Promise<void>): Promise<void> {
    const target = this.current + ms;
    for (let fire = this.takeDue(target); fire; fire = this.takeDue(target)) {
      fire();
      await settled();
    }
    this.current = target;
  }

  pendingTimers(): number {
    return this.timers.size;
  }
}
