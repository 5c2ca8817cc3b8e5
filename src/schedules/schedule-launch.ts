import type { Clock } from '../clock.js';
import type { ScheduleRow } from '../db/schema.js';
import { isTargetGone } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics/metrics.js';
import { failureChange, successChange } from './schedule-failures.js';
import type { ScheduleLauncher } from './schedule-launcher.js';
import type { ScheduleStore } from './schedule-store.js';
import { formatInZone } from './zoned-time.js';

export interface ScheduleLaunchDeps {
  readonly store: ScheduleStore;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: Metrics;
  /** A schedule paused by its failures stops firing here. */
  readonly disarm: (id: number) => void;
  /** Tells the other processes the schedule's state changed (errored or paused). */
  readonly announce: (id: number) => void;
}

/**
 * Starts the run of a fired schedule and records how the start went on the schedule: a channel
 * launch that worked clears its failures; one that failed is told on the schedule, and only a target
 * that is gone counts towards pausing it (an outage of the platform passes by itself). Resolves once
 * recorded; the fire itself was recorded before.
 */
export function launchSchedule(launcher: ScheduleLauncher, row: ScheduleRow, firedAt: number, deps: ScheduleLaunchDeps): Promise<void> {
  const { store, clock, logger, metrics } = deps;
  let started: Promise<void>;
  try {
    started =
      row.target === 'thread' && row.conversationId !== null
        ? launcher.queueInConversation(row.conversationId, row.prompt, row.id)
        : launcher.startInChannel({ platform: row.platform, workspace: row.workspace, channel: row.channel }, row.prompt, row.id);
  } catch (err) {
    started = Promise.reject(err);
  }
  return started.then(
    async () => {
      metrics.scheduleFired('started');
      // A channel launch posted into the channel, so the target works again; a thread launch only
      // queued a task, so its failures in a row stay until a run there completes (the runtime reports it).
      const change = row.target === 'channel' ? successChange(row) : row.consecutiveFailures === 0 && row.failReason !== null ? { failReason: null } : null;
      if (change) await store.update(row.id, change, clock.now());
    },
    async (err: unknown) => {
      metrics.scheduleFired('failed');
      const message = err instanceof Error ? err.message : String(err);
      logger.warn({ err, scheduleId: row.id }, 'schedule launch failed');
      const failReason = `The run at ${formatInZone(firedAt, row.timezone)} could not start: ${message}`;
      // Only a target that is gone counts towards pausing: an outage of the platform passes by itself.
      if (!isTargetGone(err)) {
        const updated = await store.update(row.id, { failReason, ...(row.kind === 'once' ? { status: 'error' as const } : {}) }, clock.now());
        if (updated?.status === 'error') deps.announce(row.id);
        return;
      }
      const current = await store.get(row.id);
      if (!current) return;
      const updated = await store.update(row.id, failureChange(current, failReason), clock.now());
      if (updated?.status === 'paused') {
        deps.disarm(row.id);
        deps.announce(row.id);
      }
    },
  );
}
