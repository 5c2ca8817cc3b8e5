import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics/metrics.js';
import { ScheduleService } from './schedule-service.js';
import type { ScheduleStore } from './schedule-store.js';
import { Scheduler, type WakeTimer } from './scheduler.js';

export interface SchedulingOptions {
  store: ScheduleStore;
  clock: Clock;
  logger: Logger;
  config: Pick<Config, 'MIN_INTERVAL_MINUTES' | 'MAX_SCHEDULES_PER_CHANNEL' | 'MISSED_GRACE_MINUTES'>;
  /** Replaces the wake timer (default: node-schedule on the system clock, the clock's timers otherwise). */
  timer?: WakeTimer;
  /** Where schedule fires are counted. */
  metrics?: Metrics;
  /**
   * Tells the other processes on the same database that a schedule was created, changed or deleted here
   * (`cluster.wake('schedule', id)`), after the write; they re-read it. Default: one process, nobody to tell.
   */
  announce?: (scheduleId: number) => void;
}

/** The scheduling feature, assembled: the service for tools and commands, the scheduler to start and stop. */
export interface Scheduling {
  readonly service: ScheduleService;
  readonly scheduler: Scheduler;
}

/**
 * Builds scheduler and service over the schedules store. Nothing is armed until
 * `scheduler.start(launcher)`, so the launcher (which needs the runtime) can come later.
 */
export function createScheduling(options: SchedulingOptions): Scheduling {
  const { store } = options;
  const scheduler = new Scheduler({
    store,
    clock: options.clock,
    logger: options.logger,
    graceMs: options.config.MISSED_GRACE_MINUTES * 60_000,
    ...(options.timer ? { timer: options.timer } : {}),
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(options.announce ? { announce: options.announce } : {}),
  });
  const service = new ScheduleService(
    store,
    scheduler,
    options.clock,
    {
      minIntervalMinutes: options.config.MIN_INTERVAL_MINUTES,
      maxActivePerChannel: options.config.MAX_SCHEDULES_PER_CHANNEL,
    },
    options.announce,
  );
  return { service, scheduler };
}
