import type { Clock } from '../clock.js';
import type { ScheduleRow } from '../db/schema.js';
import type { Logger } from '../logger.js';
import type { ScheduleStore } from './schedule-store.js';

/**
 * After losing a fire to another process, when to read the schedule's next run that process writes
 * (doubling each time it is not there yet). Past the last look the row is rescheduled here, as a
 * restart would: its winner died between recording the fire and writing the next run.
 */
const LOST_FIRE_LOOKS_MS = [250, 500, 1000, 2000, 4000, 8000];

export interface LostFireLookDeps {
  readonly store: ScheduleStore;
  readonly clock: Clock;
  readonly logger: Logger;
  /** False once the scheduler stopped: no look is taken then. */
  readonly running: () => boolean;
  readonly isArmed: (id: number) => boolean;
  readonly arm: (row: ScheduleRow) => void;
  /** Computes and persists a next run here (the winner of the fire never wrote one). */
  readonly reschedule: (row: ScheduleRow, now: number) => Promise<void>;
  /** Keeps the look visible to the scheduler's `idle()`. */
  readonly track: (work: Promise<void>) => void;
}

/**
 * Re-arms schedules whose fire this process lost to another one sharing the database, once the row
 * shows the next run its winner writes. Kept apart from the scheduler because only processes
 * sharing a database ever lose a fire.
 */
export class LostFireLooks {
  private readonly looks = new Set<unknown>();

  constructor(private readonly deps: LostFireLookDeps) {}

  /**
   * Re-arms a schedule whose fire at `firedAt` this process lost, once the row shows its next run. A row no
   * longer active is left disarmed; one still without a next run after the last look is rescheduled here.
   */
  look(id: number, firedAt: number, attempt = 0): void {
    const { clock, store, logger } = this.deps;
    if (!this.deps.running()) return;
    const look = clock.setTimer(() => {
      this.looks.delete(look);
      this.deps.track(
        (async () => {
          if (!this.deps.running()) return;
          const row = await store.get(id);
          if (!row || row.status !== 'active' || this.deps.isArmed(id)) return;
          if (row.nextRunAt !== null && row.nextRunAt !== firedAt) return this.deps.arm(row);
          // Still due at the same time: nobody recorded that fire (our attempt failed): try it again, the
          // conditional update keeps it to one process.
          if (row.nextRunAt === firedAt && attempt >= 2) return this.deps.arm(row);
          if (attempt + 1 < LOST_FIRE_LOOKS_MS.length) return this.look(id, firedAt, attempt + 1);
          logger.warn({ scheduleId: id }, 'a schedule fired elsewhere got no next run; rescheduling it here');
          await this.deps.reschedule(row, clock.now());
        })(),
      );
    }, LOST_FIRE_LOOKS_MS[attempt]!);
    this.looks.add(look);
  }

  /** Cancels every look still waiting (the scheduler stops). */
  clear(): void {
    for (const look of this.looks) this.deps.clock.clearTimer(look);
    this.looks.clear();
  }
}
