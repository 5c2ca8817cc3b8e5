import type { ScheduleRow } from '../db/schema.js';
import type { Logger } from '../logger.js';
import type { ScheduleChange, ScheduleStore } from './schedule-store.js';
import { nextRunAfter } from './schedule-timing.js';
import { formatInZone } from './zoned-time.js';

const NO_NEXT_RUN = 'No future fire time could be computed from this schedule.';

export interface NextRunDeps {
  readonly store: ScheduleStore;
  readonly logger: Logger;
  /** How late a fire may be and still run (named in the skip's reason). */
  readonly graceMs: number;
  /** Arms the row as persisted. */
  readonly arm: (row: ScheduleRow) => void;
  /** Tells the other processes the schedule's state changed (it errored). */
  readonly announce: (id: number) => void;
}

/**
 * Persists and arms the run after `dueAt` of a fired (or skipped) schedule; a skipped run is
 * recorded in `fail_reason`, and a schedule with no future run is errored. The second pass of a fire,
 * kept apart because evaluating cron in a timezone is the slow part.
 */
export async function advanceSchedule(
  fired: ScheduleRow,
  dueAt: number,
  now: number,
  skipped: boolean,
  deps: NextRunDeps,
): Promise<void> {
  const row = await deps.store.get(fired.id);
  if (!row || row.status !== 'active') return;
  const next = row.kind === 'once' ? null : nextRunAfter(row, Math.max(now, dueAt));
  // The status is written only to error it: a pause that lands between the read above and this write (its launch
  // found the creator's rights gone) stays, rather than being turned back to active.
  const change: ScheduleChange = next === null ? { nextRunAt: null, status: 'error' } : { nextRunAt: next };
  if (skipped) {
    const late = Math.round((now - dueAt) / 60_000);
    change.failReason = `Skipped the run due ${formatInZone(dueAt, row.timezone)}: it was ${late} min late (Errand was not running), more than the ${Math.round(deps.graceMs / 60_000)} min grace.`;
    deps.logger.warn({ scheduleId: row.id, dueAt, lateMs: now - dueAt }, 'missed schedule skipped');
  } else if (next === null) {
    change.failReason = NO_NEXT_RUN;
  }
  const updated = await deps.store.update(row.id, change, now);
  if (updated) deps.arm(updated);
  if (updated?.status === 'error') deps.announce(row.id);
}

/** Computes a next run for an active row that has none (or a bad one), persisting the result, as a restart would. */
export async function rescheduleFrom(
  row: ScheduleRow,
  now: number,
  deps: Pick<NextRunDeps, 'store' | 'arm' | 'announce'>,
): Promise<void> {
  const next = nextRunAfter(row, now);
  const change =
    next === null ? { status: 'error' as const, nextRunAt: null, failReason: NO_NEXT_RUN } : { nextRunAt: next };
  deps.arm((await deps.store.update(row.id, change, now)) ?? row);
  if (next === null) deps.announce(row.id);
}
