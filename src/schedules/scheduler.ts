import { performance } from 'node:perf_hooks';
import { createRequire } from 'node:module';
import type schedule from 'node-schedule';
import { systemClock, type Clock } from '../clock.js';
import type { ScheduleRow } from '../db/schema.js';
import { isTargetGone } from '../errors.js';
import type { Logger } from '../logger.js';
import { noopMetrics, type Metrics } from '../metrics/metrics.js';
import { DueQueue } from './due-queue.js';
import { failureChange, successChange } from './schedule-failures.js';
import type { ScheduleLauncher } from './schedule-launcher.js';
import type { ScheduleChange, ScheduleStore } from './schedule-store.js';
import { nextRunAfter } from './schedule-timing.js';
import { formatInZone } from './zoned-time.js';

/** The one real timer the scheduler needs: "wake me at `at`" (replacing any earlier request). */
export interface WakeTimer {
  set(at: number, fn: () => void): void;
  clear(): void;
}

/** setTimeout caps delays at 2^31-1 ms (~24.8 days); longer waits are taken in hops. */
const MAX_DELAY_MS = 2_147_483_647;
/** How long one slice of rescheduling may hold the event loop. */
const ADVANCE_SLICE_MS = 4;
/**
 * After losing a fire to another process, when to read the schedule's next run that process writes
 * (doubling each time it is not there yet). Past the last look the row is rescheduled here, as a
 * restart would: its winner died between recording the fire and writing the next run.
 */
const LOST_FIRE_LOOKS_MS = [250, 500, 1000, 2000, 4000, 8000];

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
    handle = delay > MAX_DELAY_MS ? clock.setTimer(() => set(at, fn), MAX_DELAY_MS) : clock.setTimer(fn, Math.max(0, delay));
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
  private readonly pending: { row: ScheduleRow; dueAt: number; now: number; skipped: boolean }[] = [];
  private drainHandle: unknown = null;
  /** A slice of the second pass is under way (it awaits the store between rows). */
  private draining = false;
  private readonly metrics: Metrics;
  /** Looks for the next run of schedules whose fire another process won (see LOST_FIRE_LOOKS_MS). */
  private readonly lostFireLooks = new Set<unknown>();
  /** Re-reads of schedules changed elsewhere, one after the other: a later read never lands before an earlier one. */
  private syncing: Promise<void> = Promise.resolve();

  constructor(private readonly opts: SchedulerOptions) {
    this.timer = opts.timer ?? wakeTimerFor(opts.clock);
    this.metrics = opts.metrics ?? noopMetrics;
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
    return { armed: this.queue.size, overdue };
  }

  /** Disarms everything and waits for launches already under way. */
  async stop(): Promise<void> {
    this.launcher = null;
    this.timer.clear();
    this.wakeAt = null;
    if (this.drainHandle !== null) this.opts.clock.clearTimer(this.drainHandle);
    this.drainHandle = null;
    for (const look of this.lostFireLooks) this.opts.clock.clearTimer(look);
    this.lostFireLooks.clear();
    this.pending.length = 0;
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
      const fired = await this.guard(id, () => this.opts.store.recordFire(id, at, now));
      if (!fired) {
        // Another process sharing the database fired it (or it was paused, edited or deleted there):
        // stay armed for its next run, which the winner writes in a moment.
        this.lookForNextRun(id, at, 0);
        continue;
      }
      this.launch(fired, now);
      // A one-off is completed by its fire: the processes that armed it too disarm it now rather than at its time.
      if (fired.status !== 'active') this.announce(id);
      if (fired.kind !== 'once') later.push({ row: fired, dueAt: at, skipped: false });
    }
    this.rewake();
    if (later.length > 0) {
      this.pending.push(...later.map((l) => ({ ...l, now })));
      await this.drainPending();
    }
  }

  /**
   * Second pass, in slices of a few milliseconds: evaluating cron in a timezone is the slow
   * part, and a big batch must not hold up timers that fall due meanwhile.
   */
  private async drainPending(): Promise<void> {
    if (this.drainHandle !== null || this.draining) return;
    this.draining = true;
    try {
      const t0 = performance.now();
      while (this.pending.length > 0 && performance.now() - t0 < ADVANCE_SLICE_MS) {
        const { row, dueAt, now, skipped } = this.pending.shift()!;
        await this.guard(row.id, () => this.advance(row, dueAt, now, skipped));
      }
    } finally {
      this.draining = false;
    }
    if (this.pending.length === 0 || !this.launcher) return;
    this.drainHandle = this.opts.clock.setTimer(() => {
      this.drainHandle = null;
      this.track(this.drainPending());
    }, 0);
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
  private async advance(fired: ScheduleRow, dueAt: number, now: number, skipped: boolean): Promise<void> {
    const row = await this.opts.store.get(fired.id);
    if (!row || row.status !== 'active') return;
    const next = row.kind === 'once' ? null : nextRunAfter(row, Math.max(now, dueAt));
    const change: ScheduleChange = { nextRunAt: next, status: next === null ? 'error' : 'active' };
    if (skipped) {
      const late = Math.round((now - dueAt) / 60_000);
      change.failReason = `Skipped the run due ${formatInZone(dueAt, row.timezone)}: it was ${late} min late (Errand was not running), more than the ${Math.round(this.opts.graceMs / 60_000)} min grace.`;
      this.opts.logger.warn({ scheduleId: row.id, dueAt, lateMs: now - dueAt }, 'missed schedule skipped');
    } else if (next === null) {
      change.failReason = 'No future fire time could be computed from this schedule.';
    }
    const updated = await this.opts.store.update(row.id, change, now);
    if (updated) this.arm(updated);
    if (updated?.status === 'error') this.announce(row.id);
  }

  /**
   * Re-arms a schedule whose fire at `firedAt` this process lost, once the row shows its next run. A row no
   * longer active is left disarmed; one still without a next run after the last look is rescheduled here.
   */
  private lookForNextRun(id: number, firedAt: number, attempt: number): void {
    if (!this.launcher) return;
    const look = this.opts.clock.setTimer(() => {
      this.lostFireLooks.delete(look);
      this.track(
        (async () => {
          if (!this.launcher) return;
          const row = await this.opts.store.get(id);
          if (!row || row.status !== 'active' || this.queue.has(id)) return;
          if (row.nextRunAt !== null && row.nextRunAt !== firedAt) return this.arm(row);
          // Still due at the same time: nobody recorded that fire (our attempt failed): try it again, the
          // conditional update keeps it to one process.
          if (row.nextRunAt === firedAt && attempt >= 2) return this.arm(row);
          if (attempt + 1 < LOST_FIRE_LOOKS_MS.length) return this.lookForNextRun(id, firedAt, attempt + 1);
          this.opts.logger.warn({ scheduleId: id }, 'a schedule fired elsewhere got no next run; rescheduling it here');
          await this.reschedule(row, this.opts.clock.now());
        })(),
      );
    }, LOST_FIRE_LOOKS_MS[attempt]!);
    this.lostFireLooks.add(look);
  }

  /** Computes a next run for an active row that has none (or a bad one), persisting the result. */
  private async reschedule(row: ScheduleRow, now: number): Promise<void> {
    const next = nextRunAfter(row, now);
    const change = next === null ? { status: 'error' as const, nextRunAt: null, failReason: 'No future fire time could be computed from this schedule.' } : { nextRunAt: next };
    this.arm((await this.opts.store.update(row.id, change, now)) ?? row);
    if (next === null) this.announce(row.id);
  }

  private launch(row: ScheduleRow, firedAt: number): void {
    const launcher = this.launcher;
    if (!launcher) return;
    let started: Promise<void>;
    try {
      started =
        row.target === 'thread' && row.conversationId !== null
          ? launcher.queueInConversation(row.conversationId, row.prompt, row.id)
          : launcher.startInChannel({ platform: row.platform, workspace: row.workspace, channel: row.channel }, row.prompt, row.id);
    } catch (err) {
      started = Promise.reject(err);
    }
    const p = started.then(
      async () => {
        this.metrics.scheduleFired('started');
        // A channel launch posted into the channel, so the target works again; a thread launch only
        // queued a task, so its failures in a row stay until a run there completes (the runtime reports it).
        const change = row.target === 'channel' ? successChange(row) : row.consecutiveFailures === 0 && row.failReason !== null ? { failReason: null } : null;
        if (change) await this.opts.store.update(row.id, change, this.opts.clock.now());
      },
      async (err: unknown) => {
        this.metrics.scheduleFired('failed');
        const message = err instanceof Error ? err.message : String(err);
        this.opts.logger.warn({ err, scheduleId: row.id }, 'schedule launch failed');
        const failReason = `The run at ${formatInZone(firedAt, row.timezone)} could not start: ${message}`;
        // Only a target that is gone counts towards pausing: an outage of the platform passes by itself.
        if (!isTargetGone(err)) {
          const updated = await this.opts.store.update(row.id, { failReason, ...(row.kind === 'once' ? { status: 'error' as const } : {}) }, this.opts.clock.now());
          if (updated?.status === 'error') this.announce(row.id);
          return;
        }
        const current = await this.opts.store.get(row.id);
        if (!current) return;
        const updated = await this.opts.store.update(row.id, failureChange(current, failReason), this.opts.clock.now());
        if (updated?.status === 'paused') {
          this.disarm(row.id);
          this.announce(row.id);
        }
      },
    );
    this.track(p);
  }
}
