import { and, asc, count, eq, isNull, lte, min, sql } from 'drizzle-orm';
import type { ChannelRef } from '../../chat/conversation-ref.js';
import { scheduleLaunches, schedules } from '../../db/pg-schema.js';
import type { ScheduleRow } from '../../db/schema.js';
import type { ScheduleStore } from '../schedule-store.js';
import type { PgExecutor } from '../../store/postgres/pg-executor.js';
import { prepared } from '../../store/postgres/pg-prepared.js';

const inChannel = (c: ChannelRef) =>
  and(eq(schedules.platform, c.platform), eq(schedules.workspace, c.workspace), eq(schedules.channel, c.channel));

const P = sql.placeholder;
/**
 * The scheduler's looks at every cluster tick (a third of a lease) and sweep, prepared by name with their statuses
 * written as literals: a bound status kept PostgreSQL from a generic plan on the partial index of pending launches,
 * so each look was planned anew (≈ 65–180 µs of the server's CPU; bench/OVERHEAD.md, issue 40's eighth round).
 */
const PENDING_LAUNCH = sql`${scheduleLaunches.status} = 'pending'`;
const dueLaunchIds = prepared((d) =>
  d
    .select({ id: scheduleLaunches.id })
    .from(scheduleLaunches)
    .where(and(PENDING_LAUNCH, lte(scheduleLaunches.notBefore, P('now'))))
    .orderBy(asc(scheduleLaunches.id))
    .limit(P('limit')),
);
const nextLaunchAt = prepared((d) =>
  d
    .select({ at: min(scheduleLaunches.notBefore) })
    .from(scheduleLaunches)
    .where(PENDING_LAUNCH),
);
const activeDueBy = prepared((d) =>
  d
    .select({ id: schedules.id, nextRunAt: schedules.nextRunAt })
    .from(schedules)
    .where(and(sql`${schedules.status} = 'active'`, lte(schedules.nextRunAt, P('until'))))
    .orderBy(asc(schedules.nextRunAt)),
);

/**
 * Schedules on PostgreSQL. A fire is claimed with one conditional update (`where next_run_at = $dueAt`):
 * when every process has the schedule armed, the first update wins and the others match no row.
 */
export function createPgScheduleStore(db: PgExecutor): ScheduleStore {
  const pendingLaunch = (id: number) => and(eq(scheduleLaunches.id, id), eq(scheduleLaunches.status, 'pending'));
  const recordFireOn = async (ex: PgExecutor, id: number, dueAt: number, now: number): Promise<ScheduleRow | null> => {
    const [row] = await ex
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
  };
  const recordFire = (id: number, dueAt: number, now: number) => recordFireOn(db, id, dueAt, now);
  return {
    async fireAndLaunch(id, dueAt, now, claimUntil) {
      // One transaction (joining the caller's when there is one): the fire is claimed, and its launch kept with it.
      return db.transaction(async (tx) => {
        const schedule = await recordFireOn(tx, id, dueAt, now);
        if (!schedule) return null;
        const { platform, workspace, channel, target, conversationId, prompt } = schedule;
        const [launch] = await tx
          .insert(scheduleLaunches)
          .values({
            scheduleId: id,
            firedAt: dueAt,
            prompt,
            target,
            platform,
            workspace,
            channel,
            conversationId,
            attempts: 1,
            notBefore: claimUntil,
            createdAt: now,
            updatedAt: now,
          })
          .returning();
        return { schedule, launch: launch! };
      });
    },
    async launch(launchId) {
      const [row] = await db.select().from(scheduleLaunches).where(eq(scheduleLaunches.id, launchId));
      return row ?? null;
    },
    async claimLaunch(launchId, now, until) {
      const [row] = await db
        .update(scheduleLaunches)
        .set({ notBefore: until, attempts: sql`${scheduleLaunches.attempts} + 1`, updatedAt: now })
        .where(and(pendingLaunch(launchId), lte(scheduleLaunches.notBefore, now)))
        .returning();
      return row ?? null;
    },
    async dueLaunches(now, limit) {
      const rows = await dueLaunchIds(db, { now, limit });
      return rows.map((r) => r.id);
    },
    async nextLaunchDue() {
      const [row] = await nextLaunchAt(db);
      return row?.at ?? null;
    },
    async setLaunchNote(launchId, outboxId, now) {
      const unset = outboxId === null ? sql`true` : isNull(scheduleLaunches.noteOutboxId);
      const rows = await db
        .update(scheduleLaunches)
        .set({ noteOutboxId: outboxId, updatedAt: now })
        .where(and(pendingLaunch(launchId), unset))
        .returning({ id: scheduleLaunches.id });
      return rows.length === 1;
    },
    async endLaunch(launchId, status, error, now) {
      const rows = await db
        .update(scheduleLaunches)
        .set({ status, error, updatedAt: now })
        .where(pendingLaunch(launchId))
        .returning({ id: scheduleLaunches.id });
      return rows.length === 1;
    },
    async delayLaunch(launchId, notBefore, error, now) {
      await db.update(scheduleLaunches).set({ notBefore, error, updatedAt: now }).where(pendingLaunch(launchId));
    },
    recordFire,
    async insert(row) {
      const [inserted] = await db
        .insert(schedules)
        .values({ ...row, updatedAt: row.createdAt })
        .returning();
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
      const [r] = await db
        .select({ n: count() })
        .from(schedules)
        .where(and(inChannel(channel), eq(schedules.status, 'active')));
      return r?.n ?? 0;
    },
    async listActiveDue() {
      return db
        .select({ id: schedules.id, nextRunAt: schedules.nextRunAt })
        .from(schedules)
        .where(eq(schedules.status, 'active'))
        .orderBy(sql`${schedules.nextRunAt} asc nulls first`);
    },
    async listActiveDueBy(until) {
      const rows = await activeDueBy(db, { until });
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
