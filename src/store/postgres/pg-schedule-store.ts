import { and, asc, count, eq, lte, sql } from 'drizzle-orm';
import type { ChannelRef } from '../../chat/conversation-ref.js';
import { schedules } from '../../db/pg-schema.js';
import type { ScheduleStore } from '../../schedules/schedule-store.js';
import type { PgExecutor } from './pg-executor.js';

const inChannel = (c: ChannelRef) => and(eq(schedules.platform, c.platform), eq(schedules.workspace, c.workspace), eq(schedules.channel, c.channel));

/**
 * Schedules on PostgreSQL. A fire is claimed with one conditional update (`where next_run_at = $dueAt`):
 * when every process has the schedule armed, the first update wins and the others match no row.
 */
export function createPgScheduleStore(db: PgExecutor): ScheduleStore {
  return {
    async recordFire(id, dueAt, now) {
      const [row] = await db
        .update(schedules)
        .set({
          status: sql`case when ${schedules.kind} = 'once' then 'completed' else 'active' end`,
          nextRunAt: null,
          lastRunAt: now,
          runCount: sql`${schedules.runCount} + 1`,
          updatedAt: now,
        })
        .where(and(eq(schedules.id, id), eq(schedules.status, 'active'), eq(schedules.nextRunAt, dueAt)))
        .returning();
      return row ?? null;
    },
    async insert(row) {
      const [inserted] = await db.insert(schedules).values({ ...row, updatedAt: row.createdAt }).returning();
      return inserted!;
    },
    async get(id) {
      const [row] = await db.select().from(schedules).where(eq(schedules.id, id));
      return row ?? null;
    },
    async listInChannel(channel) {
      return db.select().from(schedules).where(inChannel(channel)).orderBy(asc(schedules.id));
    },
    async countActiveInChannel(channel) {
      const [r] = await db.select({ n: count() }).from(schedules).where(and(inChannel(channel), eq(schedules.status, 'active')));
      return r?.n ?? 0;
    },
    async listActiveDue() {
      return db.select({ id: schedules.id, nextRunAt: schedules.nextRunAt }).from(schedules).where(eq(schedules.status, 'active')).orderBy(sql`${schedules.nextRunAt} asc nulls first`);
    },
    async listActiveDueBy(until) {
      const rows = await db
        .select({ id: schedules.id, nextRunAt: schedules.nextRunAt })
        .from(schedules)
        .where(and(eq(schedules.status, 'active'), lte(schedules.nextRunAt, until)))
        .orderBy(asc(schedules.nextRunAt));
      return rows.flatMap((r) => (r.nextRunAt === null ? [] : [{ id: r.id, nextRunAt: r.nextRunAt }]));
    },
    async update(id, change, now) {
      const { incrementRunCount, ...fields } = change;
      const [row] = await db
        .update(schedules)
        .set({ ...fields, ...(incrementRunCount ? { runCount: sql`${schedules.runCount} + 1` } : {}), updatedAt: now })
        .where(eq(schedules.id, id))
        .returning();
      return row ?? null;
    },
    async delete(id) {
      const rows = await db.delete(schedules).where(eq(schedules.id, id)).returning({ id: schedules.id });
      return rows.length > 0;
    },
  };
}
