import { and, asc, count, eq, sql } from 'drizzle-orm';
import type { ChannelRef } from '../chat/conversation-ref.js';
import type { Db } from '../db/client.js';
import { schedules, type ScheduleRow, type ScheduleStatus } from '../db/schema.js';

/** A new schedule as the service validated it. */
export type NewSchedule = Omit<typeof schedules.$inferInsert, 'id' | 'runCount' | 'lastRunAt' | 'failReason' | 'consecutiveFailures' | 'updatedAt'>;

/** The fields a fire, a skip, a pause, a resume or an edit changes. */
export type ScheduleChange = Partial<Pick<ScheduleRow, 'status' | 'nextRunAt' | 'lastRunAt' | 'failReason' | 'consecutiveFailures' | 'prompt' | 'kind' | 'spec' | 'timezone' | 'anchorAt'>> & { incrementRunCount?: boolean };

/** Queries over the `schedules` table; the one place that knows its columns. */
export interface ScheduleStore {
  insert(row: NewSchedule): ScheduleRow;
  get(id: number): ScheduleRow | null;
  /** Every schedule of a channel, oldest first (completed and errored ones too). */
  listInChannel(channel: ChannelRef): ScheduleRow[];
  countActiveInChannel(channel: ChannelRef): number;
  /** Id and due time of every active schedule: all the scheduler needs to arm at start-up. */
  listActiveDue(): { id: number; nextRunAt: number | null }[];
  update(id: number, change: ScheduleChange, now: number): ScheduleRow | null;
  /**
   * The hot path of a fire, one prepared statement: if the row is still active and due at
   * `dueAt`, count the run, clear `next_run_at` (the scheduler sets it next) and complete a
   * `once`. Null when the schedule changed meanwhile (paused, deleted, rescheduled).
   */
  recordFire(id: number, dueAt: number, now: number): ScheduleRow | null;
  delete(id: number): boolean;
}

const inChannel = (c: ChannelRef) => and(eq(schedules.platform, c.platform), eq(schedules.workspace, c.workspace), eq(schedules.channel, c.channel));

export function createScheduleStore(db: Db): ScheduleStore {
  const byId = db.select().from(schedules).where(eq(schedules.id, sql.placeholder('id'))).prepare();
  const fire = db
    .update(schedules)
    .set({
      status: sql`case when ${schedules.kind} = 'once' then 'completed' else 'active' end`,
      nextRunAt: null,
      lastRunAt: sql`${sql.placeholder('now')}`,
      runCount: sql`${schedules.runCount} + 1`,
      updatedAt: sql`${sql.placeholder('now')}`,
    })
    .where(and(eq(schedules.id, sql.placeholder('id')), eq(schedules.status, 'active'), eq(schedules.nextRunAt, sql.placeholder('dueAt'))))
    .returning()
    .prepare();
  return {
    recordFire(id, dueAt, now) {
      return fire.get({ id, dueAt, now }) ?? null;
    },
    insert(row) {
      return db.insert(schedules).values({ ...row, updatedAt: row.createdAt }).returning().get();
    },
    get(id) {
      return byId.get({ id }) ?? null;
    },
    listInChannel(channel) {
      return db.select().from(schedules).where(inChannel(channel)).orderBy(asc(schedules.id)).all();
    },
    countActiveInChannel(channel) {
      const r = db.select({ n: count() }).from(schedules).where(and(inChannel(channel), eq(schedules.status, 'active'))).get();
      return r?.n ?? 0;
    },
    listActiveDue() {
      return db
        .select({ id: schedules.id, nextRunAt: schedules.nextRunAt })
        .from(schedules)
        .where(eq(schedules.status, 'active' satisfies ScheduleStatus))
        .orderBy(asc(schedules.nextRunAt))
        .all();
    },
    update(id, change, now) {
      const { incrementRunCount, ...fields } = change;
      return (
        db
          .update(schedules)
          .set({ ...fields, ...(incrementRunCount ? { runCount: sql`${schedules.runCount} + 1` } : {}), updatedAt: now })
          .where(eq(schedules.id, id))
          .returning()
          .get() ?? null
      );
    },
    delete(id) {
      return db.delete(schedules).where(eq(schedules.id, id)).run().changes > 0;
    },
  };
}
