import type { Clock } from '../clock.js';
import type { ScheduleRow } from '../db/schema.js';
import { isTargetGone } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics/metrics.js';
import { failureChange, successChange } from './schedule-failures.js';
import type { LaunchSetback, ScheduleLauncher } from './schedule-launcher.js';
import type { ScheduleLaunchRow, ScheduleStore } from './schedule-store.js';
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
  /** A launch left pending is to be tried again from `at`. */
  readonly retryAt?: (at: number) => void;
}

/** How long one attempt holds a launch before another (this process's sweep, another process) may take it over. */
export const LAUNCH_CLAIM_MS = 2 * 60_000;
/** A fire whose run could not start for this long is given up, and counts as a failed run of its schedule. */
export const LAUNCH_GIVE_UP_MS = 24 * 60 * 60_000;

/** What fired: the pending launch kept with the fire, or (no launch kept) the schedule as it fired. */
type Fired = Pick<ScheduleLaunchRow, 'prompt' | 'target' | 'platform' | 'workspace' | 'channel' | 'conversationId'> & {
  readonly id?: number;
};

/**
 * Starts the run of a fired schedule and records how the start went on the schedule: a channel
 * launch that worked clears its failures; one that failed is told on the schedule, and only a target
 * that is gone counts towards pausing it (an outage of the platform passes by itself: the launch stays
 * pending and is tried again, so the prompt is not lost, and a one-off does not become `error`). A schedule
 * whose creator lost the rights it needs is paused. The launch is claimed first (of several processes, or a
 * sweep and the fire, one attempt goes on) and ended here when the launcher did not end it itself. Resolves once
 * recorded; the fire itself was recorded before.
 */
export async function launchSchedule(
  launcher: ScheduleLauncher,
  row: ScheduleRow,
  firedAt: number,
  deps: ScheduleLaunchDeps,
  pending?: ScheduleLaunchRow,
  claimed = false,
): Promise<void> {
  const { store, clock, logger, metrics } = deps;
  const at = formatInZone(firedAt, row.timezone);
  // A launch the fire just wrote is claimed already (no write before the run starts); any other is claimed here.
  const launch =
    pending && !claimed ? await store.claimLaunch(pending.id, clock.now(), clock.now() + LAUNCH_CLAIM_MS) : pending;
  if (launch === null) return;
  const end = async (status: 'failed', error: string | null) => {
    if (launch) await store.endLaunch(launch.id, status, error, clock.now());
  };
  if (launch && clock.now() - launch.firedAt > LAUNCH_GIVE_UP_MS) {
    const reason = `The run at ${at} could not start for ${Math.round(LAUNCH_GIVE_UP_MS / 3_600_000)} hours (last: ${launch.error ?? 'unknown'}); given up.`;
    await end('failed', reason);
    metrics.scheduleFired('failed');
    const current = await store.get(row.id);
    const updated = current ? await store.update(row.id, failureChange(current, reason), clock.now()) : null;
    if (updated && updated.status !== 'active') {
      deps.disarm(row.id);
      deps.announce(row.id);
    }
    return;
  }
  const what: Fired = launch ?? row;
  const launchId = launch?.id;
  let started: Promise<LaunchSetback | void>;
  try {
    started =
      what.target === 'thread' && what.conversationId !== null
        ? launcher.queueInConversation(what.conversationId, what.prompt, row.id, launchId)
        : launcher.startInChannel(
            { platform: what.platform, workspace: what.workspace, channel: what.channel },
            what.prompt,
            row.id,
            launchId,
          );
  } catch (err) {
    started = Promise.reject(err);
  }
  return started.then(
    async (setback) => {
      if (setback) return recordSetback(row, at, setback, deps);
      // Queued: the launcher ended the launch in the write that queued the run.
      metrics.scheduleFired('started');
      // A channel launch posted into the channel, so the target works again; a thread launch only
      // queued a task, so its failures in a row stay until a run there completes (the runtime reports it).
      const change =
        row.target === 'channel'
          ? successChange(row)
          : row.consecutiveFailures === 0 && row.failReason !== null
            ? { failReason: null }
            : null;
      if (change) await store.update(row.id, change, clock.now());
    },
    async (err: unknown) => {
      metrics.scheduleFired('failed');
      const message = err instanceof Error ? err.message : String(err);
      logger.warn({ err, scheduleId: row.id }, 'schedule launch failed');
      const failReason = `The run at ${at} could not start: ${message}`;
      await end('failed', message);
      // Only a target that is gone counts towards pausing: an outage of the platform passes by itself.
      if (!isTargetGone(err)) {
        const updated = await store.update(
          row.id,
          { failReason, ...(row.kind === 'once' ? { status: 'error' as const } : {}) },
          clock.now(),
        );
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

/** Records on the schedule why its run did not start this time (nothing for what another attempt or the next start finishes). */
async function recordSetback(
  row: ScheduleRow,
  at: string,
  setback: LaunchSetback,
  deps: ScheduleLaunchDeps,
): Promise<void> {
  const { store, clock, logger, metrics } = deps;
  switch (setback.kind) {
    case 'elsewhere':
    case 'interrupted':
    case 'dropped':
      return;
    case 'retry':
      metrics.scheduleFired('failed');
      logger.warn(
        { scheduleId: row.id, reason: setback.reason },
        'schedule launch failed for now; it will be tried again',
      );
      await store.update(
        row.id,
        { failReason: `The run at ${at} could not start yet (${setback.reason}); trying again.` },
        clock.now(),
      );
      deps.retryAt?.(setback.at);
      return;
    case 'refused': {
      metrics.scheduleFired('failed');
      logger.warn(
        { scheduleId: row.id, reason: setback.reason },
        'schedule paused: its creator no longer has the rights it needs',
      );
      const updated = await store.update(
        row.id,
        { status: 'paused', nextRunAt: null, failReason: `Paused at ${at}: ${setback.reason}` },
        clock.now(),
      );
      deps.disarm(row.id);
      if (updated) deps.announce(row.id);
      return;
    }
  }
}
