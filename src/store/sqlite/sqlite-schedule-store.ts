import { and, asc, count, eq, lte, sql } from 'drizzle-orm';
import type { ChannelRef } from '../../chat/conversation-ref.js';
import type { Db } from '../../db/client.js';
import { schedules, type ScheduleStatus } from '../../db/schema.js';
import type { ScheduleStore } from '../../schedules/schedule-store.js';
import type { Synchronous } from './synchronous.js';

const inChannel = (c: ChannelRef) => and(eq(schedules.platform, c.platform), eq(schedules.workspace, c.workspace), eq(schedules.channel, c.channel));

/** Schedules on SQLite: the fire is one prepared conditional update. */

export function createSqliteScheduleStore(db: Db): Synchronous<ScheduleStore> {
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
    listActiveDueBy(until) {
      return db
        .select({ id: schedules.id, nextRunAt: schedules.nextRunAt })
        .from(schedules)
        .where(and(eq(schedules.status, 'active' satisfies ScheduleStatus), lte(schedules.nextRunAt, until)))
        .orderBy(asc(schedules.nextRunAt))
        .all()
        .flatMap((r) => (r.nextRunAt === null ? [] : [{ id: r.id, nextRunAt: r.nextRunAt }]));
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
