import type { Clock } from '../clock.js';
import type { ScheduleRow } from '../db/schema.js';
import type { Logger } from '../logger.js';
import { noopMetrics, type Metrics } from '../metrics/metrics.js';
import { DueQueue } from './due-queue.js';
import { LostFireLooks } from './lost-fire-looks.js';
import { advanceSchedule, rescheduleFrom } from './next-run.js';
import { NextRunDrain } from './next-run-drain.js';
import { PendingLaunches } from './pending-launches.js';
import { LAUNCH_CLAIM_MS } from './schedule-launch.js';
import type { ScheduleLauncher } from './schedule-launcher.js';
import type { ScheduleStore } from './schedule-store.js';
import { wakeTimerFor, type WakeTimer } from './wake-timer.js';

export { clockWakeTimer, nodeScheduleWakeTimer, wakeTimerFor, type WakeTimer } from './wake-timer.js';

export interface SchedulerOptions {
  store: ScheduleStore;
  clock: Clock;
  logger: Logger;
  /** How late a fire may be (process down, machine asleep) and still run; later ones are skipped and recorded. */
  graceMs: number;
  timer?: WakeTimer;
  /** Where fires are counted (default: nowhere). */
  metrics?: Metrics;
  /**
   * Tells the other processes sharing the database that a schedule's state changed here without an edit
   * (a one-off completed by its fire, a schedule errored or paused by its runs): they re-read it. Called after
   * the write committed. Default: nobody to tell (one process).
   */
  announce?: (scheduleId: number) => void;
}

/**
 * Arms active schedules and fires them through the ScheduleLauncher. Every armed schedule
 * sits in an in-memory due queue; one wake timer points at the earliest. The database stays
 * the truth: a fire is recorded (run counted, `next_run_at` cleared) by one conditional update
 * before the launch, so a crash mid-launch never fires twice; the next run is computed and
 * persisted right after (a restart in between computes it from then).
 */
export class Scheduler {
  private readonly queue = new DueQueue();
  private readonly timer: WakeTimer;
  private readonly inFlight = new Set<Promise<void>>();
  private launcher: ScheduleLauncher | null = null;
  private wakeAt: number | null = null;
  /** Fired recurring schedules (and skips) whose next run is still to be computed. */
  private readonly drain: NextRunDrain;
  private readonly metrics: Metrics;
  /** Looks for the next run of schedules whose fire another process won. */
  private readonly lostFires: LostFireLooks;
  /** Re-reads of schedules changed elsewhere, one after the other: a later read never lands before an earlier one. */
  private syncing: Promise<void> = Promise.resolve();
  /** Fires whose run is being queued, or is still to be (their launches survive a stop). */
  private readonly launches: PendingLaunches;

  constructor(private readonly opts: SchedulerOptions) {
    this.timer = opts.timer ?? wakeTimerFor(opts.clock);
    this.metrics = opts.metrics ?? noopMetrics;
    this.drain = new NextRunDrain({
      clock: opts.clock,
      running: () => this.launcher !== null,
      advance: ({ row, dueAt, now, skipped }) => this.guard(row.id, () => this.advance(row, dueAt, now, skipped)),
      track: (p) => this.track(p),
    });
    this.lostFires = new LostFireLooks({
      store: opts.store,
      clock: opts.clock,
      logger: opts.logger,
      running: () => this.launcher !== null,
      isArmed: (id) => this.queue.has(id),
      arm: (row) => this.arm(row),
      reschedule: (row, now) => this.reschedule(row, now),
      track: (work) => this.track(work),
    });
    const { store, clock, logger } = opts;
    this.launches = new PendingLaunches({
      store,
      clock,
      logger,
      metrics: this.metrics,
      launcher: () => this.launcher,
      disarm: (id) => this.disarm(id),
      announce: (id) => this.announce(id),
      track: (w) => this.track(w),
    });
  }

  /** Number of schedules currently armed. */
  get armedCount(): number {
    return this.queue.size;
  }

  /** When schedule `id` is armed to fire in this process, or null when it is not armed here. */
  armedAt(id: number): number | null {
    return this.queue.at(id) ?? null;
  }

  /**
   * Arms every active schedule. One whose time passed while Errand was down is due at once:
   * it fires a single time if within the grace, else it is skipped and the skip recorded.
   */
  async start(launcher: ScheduleLauncher): Promise<{ armed: number; overdue: number }> {
    this.launcher = launcher;
    const now = this.opts.clock.now();
    let overdue = 0;
    for (const { id, nextRunAt } of await this.opts.store.listActiveDue()) {
      if (nextRunAt === null) {
        const row = await this.opts.store.get(id);
        if (row) await this.reschedule(row, now);
        continue;
      }
      if (nextRunAt <= now) overdue++;
      this.queue.set(id, nextRunAt);
    }
    this.rewake();
    this.opts.logger.info({ armed: this.queue.size, overdue }, 'schedules armed');
    // Fires whose run was not queued before the last stop (or crash): their prompt is still to run.
    this.launches.sweep();
    return { armed: this.queue.size, overdue };
  }

  /** Disarms everything and waits for launches already under way. */
  async stop(): Promise<void> {
    this.launcher = null;
    this.timer.clear();
    this.wakeAt = null;
    this.drain.clear();
    this.launches.clear();
    this.lostFires.clear();
    this.queue.clear();
    await this.idle();
  }

  /** Resolves when no fire, launch or rescheduling is in flight (tests and shutdown). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /** Arms (or re-arms) an active schedule at its `nextRunAt`. Before `start` this is a no-op: start loads from the database. */
  arm(row: ScheduleRow): void {
    if (!this.launcher) return;
    if (row.status !== 'active' || row.nextRunAt === null) return this.disarm(row.id);
    this.queue.set(row.id, row.nextRunAt);
    this.rewake();
  }

  disarm(id: number): void {
    if (!this.queue.has(id)) return;
    this.queue.delete(id);
    this.rewake();
  }

  /**
   * Another process changed schedule `id` (created, edited, paused, resumed, deleted, completed): reads it
   * and arms it at its stored time, or disarms it when it is gone or no longer active. An active row without
   * a next run is between the two passes of a fire somewhere; its winner writes the next run and the
   * processes that lost the fire look for it, so it is left as it is.
   */
  refresh(id: number): Promise<void> {
    return this.serially(async () => {
      const row = await this.opts.store.get(id);
      if (!this.launcher) return;
      if (!row || row.status !== 'active') return this.disarm(id);
      if (row.nextRunAt !== null) this.arm(row);
    });
  }

  /**
   * The safety net behind `refresh` when processes share the database (a wake-up is best effort): arms
   * every active schedule due within `withinMs` (or overdue) at its stored time. What was armed at another
   * time is re-armed at the stored one; a fire of a schedule paused or deleted elsewhere is refused by its
   * conditional update, so nothing needs disarming here.
   */
  review(withinMs: number): Promise<void> {
    return this.serially(async () => {
      const due = await this.opts.store.listActiveDueBy(this.opts.clock.now() + withinMs);
      if (!this.launcher) return;
      let armed = 0;
      for (const { id, nextRunAt } of due) {
        if (this.queue.at(id) === nextRunAt) continue;
        this.queue.set(id, nextRunAt);
        armed++;
      }
      // Launches a process that died left pending (its claim ran out) are finished here.
      this.launches.sweep();
      if (armed === 0) return;
      this.opts.logger.info({ armed }, 'armed schedules changed elsewhere whose wake-up did not arrive');
      this.rewake();
    });
  }

  private serially(work: () => Promise<void>): Promise<void> {
    if (!this.launcher) return Promise.resolve();
    const next = this.syncing.then(work);
    this.syncing = next.catch(() => undefined);
    this.track(next.catch(() => undefined));
    return next;
  }

  private announce(id: number): void {
    this.opts.announce?.(id);
  }

  private rewake(): void {
    const at = this.queue.peekAt();
    if (at === this.wakeAt) return;
    this.wakeAt = at;
    if (at === null) this.timer.clear();
    else this.timer.set(at, () => this.track(this.onWake()));
  }

  /** Keeps bookkeeping under way visible to `idle()`; its failures are logged. */
  private track(work: Promise<void>): void {
    const tracked: Promise<void> = work
      .catch((err: unknown) => this.opts.logger.error({ err }, 'schedule bookkeeping failed'))
      .finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
  }

  /**
   * Fires everything due in two passes: first record and launch each (cheap, so a batch due at
   * the same instant starts together), then compute and persist the next runs. Between the
   * passes a recurring row has `next_run_at` null, which a restart treats as "from now on".
   */
  private async onWake(): Promise<void> {
    this.wakeAt = null;
    const now = this.opts.clock.now();
    const later: { row: ScheduleRow; dueAt: number; skipped: boolean }[] = [];
    for (const { id, at } of this.queue.popDue(now)) {
      if (now - at > this.opts.graceMs) {
        const row = await this.guard(id, () => this.opts.store.get(id));
        if (row && row.status === 'active' && row.nextRunAt === at) {
          later.push({ row, dueAt: at, skipped: true });
          this.metrics.scheduleFired('skipped');
        }
        continue;
      }
      const recorded = await this.guard(id, () => this.opts.store.fireAndLaunch(id, at, now, now + LAUNCH_CLAIM_MS));
      if (!recorded) {
        // Another process sharing the database fired it (or it was paused, edited or deleted there):
        // stay armed for its next run, which the winner writes in a moment.
        this.lostFires.look(id, at);
        continue;
      }
      const fired = recorded.schedule;
      this.launches.launch(fired, now, recorded.launch, true);
      // A one-off is completed by its fire: the processes that armed it too disarm it now rather than at its time.
      if (fired.status !== 'active') this.announce(id);
      if (fired.kind !== 'once') later.push({ row: fired, dueAt: at, skipped: false });
    }
    this.rewake();
    if (later.length > 0) {
      await this.drain.add(later.map((l) => ({ ...l, now })));
    }
  }

  private async guard<T>(scheduleId: number, fn: () => Promise<T>): Promise<T | null> {
    try {
      return await fn();
    } catch (err) {
      this.opts.logger.error({ err, scheduleId }, 'schedule bookkeeping failed');
      return null;
    }
  }

  /** Persists and arms the run after `dueAt`; a skipped run is recorded in `fail_reason`. */
  private advance(fired: ScheduleRow, dueAt: number, now: number, skipped: boolean): Promise<void> {
    return advanceSchedule(fired, dueAt, now, skipped, {
      ...this.nextRunDeps(),
      logger: this.opts.logger,
      graceMs: this.opts.graceMs,
    });
  }

  /** Computes a next run for an active row that has none (or a bad one), persisting the result. */
  private reschedule(row: ScheduleRow, now: number): Promise<void> {
    return rescheduleFrom(row, now, this.nextRunDeps());
  }

  private nextRunDeps() {
    return {
      store: this.opts.store,
      arm: (row: ScheduleRow) => this.arm(row),
      announce: (id: number) => this.announce(id),
    };
  }
}
