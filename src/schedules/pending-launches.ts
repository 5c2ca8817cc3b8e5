import type { Clock } from '../clock.js';
import type { ScheduleRow } from '../db/schema.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics/metrics.js';
import { launchSchedule } from './schedule-launch.js';
import type { ScheduleLauncher } from './schedule-launcher.js';
import type { ScheduleLaunchRow, ScheduleStore } from './schedule-store.js';

/** Pending launches finished per look at the table (the rest in the next one, at once). */
const SWEEP_BATCH = 50;

export interface PendingLaunchesDeps {
  readonly store: ScheduleStore;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: Metrics;
  /** The scheduler's launcher while it runs; null once stopped (nothing is launched then). */
  readonly launcher: () => ScheduleLauncher | null;
  readonly disarm: (id: number) => void;
  readonly announce: (id: number) => void;
  /** Keeps the work visible to the scheduler's `idle()`, its failures logged. */
  readonly track: (work: Promise<void>) => void;
}

/**
 * The runs of fired schedules, from their fire to their queued task. Each fire keeps a pending launch
 * (`schedule_launches`, written with the fire): launched at once, and looked at again when it could not start
 * (a failure that passes by itself, a stop or a crash before the run was queued, a process that died holding it):
 * at start-up, when its backoff or claim ends, and at each review of a process sharing the database.
 */
export class PendingLaunches {
  /** Launches this process is working on: a sweep leaves them alone. */
  private readonly launching = new Set<number>();
  /** The timer of the next sweep, and when it fires. */
  private timer: { handle: unknown; at: number } | null = null;

  constructor(private readonly deps: PendingLaunchesDeps) {}

  /** Starts the run of one fire, unless this process is on it already; `claimed`: the fire claimed it for this attempt. */
  launch(row: ScheduleRow, firedAt: number, launch: ScheduleLaunchRow, claimed = false): void {
    const launcher = this.deps.launcher();
    if (!launcher || this.launching.has(launch.id)) return;
    const { store, clock, logger, metrics } = this.deps;
    this.launching.add(launch.id);
    const deps = {
      store,
      clock,
      logger,
      metrics,
      disarm: this.deps.disarm,
      announce: this.deps.announce,
      retryAt: (at: number) => this.sweepAt(at),
    };
    this.deps.track(
      launchSchedule(launcher, row, firedAt, deps, launch, claimed).finally(() => this.launching.delete(launch.id)),
    );
  }

  /** Looks for due pending launches now (start-up, a review). */
  sweep(): void {
    this.deps.track(this.sweepNow());
  }

  /** Forgets the timer (the scheduler stopped); pending launches stay in the table for the next start. */
  clear(): void {
    if (this.timer !== null) this.deps.clock.clearTimer(this.timer.handle);
    this.timer = null;
  }

  /**
   * Launches every pending launch that is due, then sets the timer for the next one. The launcher claims each
   * before doing anything, so of several processes sweeping, one finishes it.
   */
  private async sweepNow(): Promise<void> {
    const { store, clock } = this.deps;
    if (!this.deps.launcher()) return;
    for (;;) {
      const due = await store.dueLaunches(clock.now(), SWEEP_BATCH);
      for (const id of due) {
        if (this.launching.has(id) || !this.deps.launcher()) continue;
        const launch = await store.launch(id);
        const row = launch ? await store.get(launch.scheduleId) : null;
        if (launch && row) this.launch(row, launch.firedAt, launch);
        else if (launch)
          await store.endLaunch(id, 'dropped', 'the schedule was deleted before its run was queued', clock.now());
      }
      if (due.length < SWEEP_BATCH) break;
    }
    const next = await store.nextLaunchDue();
    if (next !== null) this.sweepAt(Math.max(next, clock.now() + 1));
  }

  /** Sweeps at `at`, unless a sweep is set for sooner already. */
  private sweepAt(at: number): void {
    if (!this.deps.launcher() || (this.timer !== null && this.timer.at <= at)) return;
    if (this.timer !== null) this.deps.clock.clearTimer(this.timer.handle);
    const handle = this.deps.clock.setTimer(
      () => {
        this.timer = null;
        this.sweep();
      },
      Math.max(0, at - this.deps.clock.now()),
    );
    this.timer = { handle, at };
  }
}
