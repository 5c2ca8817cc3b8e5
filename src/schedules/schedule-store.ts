import type { ChannelRef } from '../chat/conversation-ref.js';
import type { schedules, ScheduleRow } from '../db/schema.js';

/** A new schedule as the service validated it. */
export type NewSchedule = Omit<typeof schedules.$inferInsert, 'id' | 'runCount' | 'lastRunAt' | 'failReason' | 'consecutiveFailures' | 'updatedAt'>;

/** The fields a fire, a skip, a pause, a resume or an edit changes. */
export type ScheduleChange = Partial<Pick<ScheduleRow, 'status' | 'nextRunAt' | 'lastRunAt' | 'failReason' | 'consecutiveFailures' | 'prompt' | 'kind' | 'spec' | 'timezone' | 'anchorAt'>> & { incrementRunCount?: boolean };

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
}
