import type { ScheduleRow } from '../db/schema.js';
import type { ScheduleChange } from './schedule-store.js';

/** A recurring schedule whose runs fail this many times in a row is paused, so it stops firing into a dead end. */
export const PAUSE_AFTER_FAILURES = 3;

/**
 * The change that records one more failed run of `row`: the reason (shown with ⚠️ in /schedules),
 * the count of failures in a row, and the status — a one-off is done (`error`), a recurring schedule
 * is paused once `pauseAfter` failures came in a row. Pure, so the policy is tested without a clock.
 */
export function failureChange(row: ScheduleRow, reason: string, pauseAfter = PAUSE_AFTER_FAILURES): ScheduleChange {
  const failures = row.consecutiveFailures + 1;
  if (row.kind === 'once') return { consecutiveFailures: failures, failReason: reason, status: 'error' };
  if (failures >= pauseAfter && row.status === 'active') {
    return {
      consecutiveFailures: failures,
      status: 'paused',
      nextRunAt: null,
      failReason: `Paused after ${failures} failed runs in a row. Last: ${reason}`,
    };
  }
  return { consecutiveFailures: failures, failReason: reason };
}

/** The change after a run that went through: the failure count and reason are cleared. Null when there is nothing to clear. */
export function successChange(row: ScheduleRow): ScheduleChange | null {
  return row.consecutiveFailures === 0 && row.failReason === null ? null : { consecutiveFailures: 0, failReason: null };
}
