import { performance } from 'node:perf_hooks';
import type { Clock } from '../clock.js';
import type { ScheduleRow } from '../db/schema.js';

/** How long one slice of rescheduling may hold the event loop. */
const ADVANCE_SLICE_MS = 4;

/** A fired recurring schedule (or a skip) whose next run is still to be computed. */
export interface PendingNextRun {
  row: ScheduleRow;
  dueAt: number;
  now: number;
  skipped: boolean;
}

/**
 * The scheduler's second pass, kept apart from it so the scheduler stays readable: next runs are
 * worked out in slices of a few milliseconds, because evaluating cron in a timezone is the slow
 * part and a big batch must not hold up timers that fall due meanwhile.
 */
export class NextRunDrain {
  private readonly pending: PendingNextRun[] = [];
  private drainHandle: unknown = null;
  /** A slice is under way (it awaits the store between rows). */
  private draining = false;

  constructor(
    private readonly opts: {
      clock: Clock;
      /** Whether the scheduler still runs; a stopped one schedules no further slice. */
      running: () => boolean;
      advance: (item: PendingNextRun) => Promise<unknown>;
      track: (p: Promise<void>) => void;
    },
  ) {}

  /** Queues next runs to compute and starts a slice unless one is under way or scheduled. */
  async add(items: PendingNextRun[]): Promise<void> {
    this.pending.push(...items);
    await this.drain();
  }

  /** Drops what is queued and the slice scheduled (on stop). */
  clear(): void {
    if (this.drainHandle !== null) this.opts.clock.clearTimer(this.drainHandle);
    this.drainHandle = null;
    this.pending.length = 0;
  }

  private async drain(): Promise<void> {
    if (this.drainHandle !== null || this.draining) return;
    this.draining = true;
    try {
      const t0 = performance.now();
      while (this.pending.length > 0 && performance.now() - t0 < ADVANCE_SLICE_MS) {
        await this.opts.advance(this.pending.shift()!);
      }
    } finally {
      this.draining = false;
    }
    if (this.pending.length === 0 || !this.opts.running()) return;
    this.drainHandle = this.opts.clock.setTimer(() => {
      this.drainHandle = null;
      this.opts.track(this.drain());
    }, 0);
  }
}
