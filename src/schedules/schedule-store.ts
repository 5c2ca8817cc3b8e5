import type { ChannelRef } from '../chat/conversation-ref.js';
import type { LaunchStatus, schedules, ScheduleLaunchRow, ScheduleRow } from '../db/schema.js';

export type { LaunchStatus, ScheduleLaunchRow };

/** A new schedule as the service validated it. */
export type NewSchedule = Omit<
  typeof schedules.$inferInsert,
  'id' | 'runCount' | 'lastRunAt' | 'failReason' | 'consecutiveFailures' | 'updatedAt'
>;

/** The fields a fire, a skip, a pause, a resume or an edit changes. */
export type ScheduleChange = Partial<
  Pick<
    ScheduleRow,
    | 'status'
    | 'nextRunAt'
    | 'lastRunAt'
    | 'failReason'
    | 'consecutiveFailures'
    | 'prompt'
    | 'kind'
    | 'spec'
    | 'timezone'
    | 'anchorAt'
  >
> & { incrementRunCount?: boolean };

/** Queries over the `schedules` table; the one place that knows its columns. */
export interface ScheduleStore {
  insert(row: NewSchedule): Promise<ScheduleRow>;
  get(id: number): Promise<ScheduleRow | null>;
  /** Every schedule of a channel, oldest first (completed and errored ones too). */
  listInChannel(channel: ChannelRef): Promise<ScheduleRow[]>;
  countActiveInChannel(channel: ChannelRef): Promise<number>;
  /** Id and due time of every active schedule: all the scheduler needs to arm at start-up. */
  listActiveDue(): Promise<{ id: number; nextRunAt: number | null }[]>;
  /**
   * Id and due time of every active schedule due at or before `until` (overdue ones too): what a
   * process sharing the database reviews each tick (a range of the `(status, next_run_at)` index).
   */
  listActiveDueBy(until: number): Promise<{ id: number; nextRunAt: number }[]>;
  update(id: number, change: ScheduleChange, now: number): Promise<ScheduleRow | null>;
  /**
   * The hot path of a fire, one prepared statement: if the row is still active and due at
   * `dueAt`, count the run, clear `next_run_at` (the scheduler sets it next) and complete a
   * `once`. Null when the schedule changed meanwhile (paused, deleted, rescheduled).
   */
  recordFire(id: number, dueAt: number, now: number): Promise<ScheduleRow | null>;
  delete(id: number): Promise<boolean>;
  /**
   * A fire and the launch of its run, in one transaction (`recordFire`'s conditional update, and a pending
   * `schedule_launches` row holding what fired): the prompt is kept until its run is queued, whatever stops Errand
   * in between. The launch is claimed by the caller until `claimUntil` (its first attempt, at once). Null as `recordFire`.
   */
  fireAndLaunch(
    id: number,
    dueAt: number,
    now: number,
    claimUntil: number,
  ): Promise<{ schedule: ScheduleRow; launch: ScheduleLaunchRow } | null>;
  launch(launchId: number): Promise<ScheduleLaunchRow | null>;
  /**
   * Takes a pending launch that is due (`not_before` passed) for this process until `until`, counting the attempt:
   * the row, or null when it is finished, backing off, or another process holds it.
   */
  claimLaunch(launchId: number, now: number, until: number): Promise<ScheduleLaunchRow | null>;
  /** Pending launches due by `now` (claims run out, backoffs over), oldest first, at most `limit`. */
  dueLaunches(now: number, limit: number): Promise<number[]>;
  /** When the next pending launch falls due (its claim or backoff ends), or null when none is pending. */
  nextLaunchDue(): Promise<number | null>;
  /** Records the outbox row of a pending launch's top-level post (null: forget it, to post anew); false when it is not pending. */
  setLaunchNote(launchId: number, outboxId: number | null, now: number): Promise<boolean>;
  /** Ends a pending launch; false when it was not pending any more (another attempt ended it first). */
  endLaunch(
    launchId: number,
    status: Exclude<LaunchStatus, 'pending'>,
    error: string | null,
    now: number,
  ): Promise<boolean>;
  /** Leaves a launch pending, to be tried again from `notBefore`, with why this attempt did not start it. */
  delayLaunch(launchId: number, notBefore: number, error: string | null, now: number): Promise<void>;
}
