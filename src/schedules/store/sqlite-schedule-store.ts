import { and, asc, count, eq, isNull, lte, min, sql } from 'drizzle-orm';
import type { ChannelRef } from '../../chat/conversation-ref.js';
import type { Db } from '../../db/client.js';
import { scheduleLaunches, schedules, type ScheduleStatus } from '../../db/schema.js';
import type { ScheduleStore } from '../schedule-store.js';
import type { Synchronous } from '../../store/sqlite/synchronous.js';

const inChannel = (c: ChannelRef) =>
  and(eq(schedules.platform, c.platform), eq(schedules.workspace, c.workspace), eq(schedules.channel, c.channel));

/** Schedules on SQLite: the fire is one prepared conditional update. */

export function createSqliteScheduleStore(db: Db): Synchronous<ScheduleStore> {
  const byId = db
    .select()
    .from(schedules)
    .where(eq(schedules.id, sql.placeholder('id')))
    .prepare();
  const fire = db
    .update(schedules)
    .set({
      status: sql`case when ${schedules.kind} = 'once' then 'completed' else 'active' end`,
      nextRunAt: null,
      lastRunAt: sql`${sql.placeholder('now')}`,
      runCount: sql`${schedules.runCount} + 1`,
      updatedAt: sql`${sql.placeholder('now')}`,
    })
    .where(
      and(
        eq(schedules.id, sql.placeholder('id')),
        eq(schedules.status, 'active'),
        eq(schedules.nextRunAt, sql.placeholder('dueAt')),
      ),
    )
    .returning()
    .prepare();
  const launchById = db
    .select()
    .from(scheduleLaunches)
    .where(eq(scheduleLaunches.id, sql.placeholder('id')))
    .prepare();
  const pendingLaunch = (id: number) => and(eq(scheduleLaunches.id, id), eq(scheduleLaunches.status, 'pending'));
  const p = (name: string) => sql.placeholder(name);
  const addLaunch = db
    .insert(scheduleLaunches)
    .values({
      scheduleId: p('scheduleId'),
      firedAt: p('firedAt'),
      prompt: p('prompt'),
      target: p('target'),
      platform: p('platform'),
      workspace: p('workspace'),
      channel: p('channel'),
      conversationId: p('conversationId'),
      attempts: 1,
      notBefore: p('claimUntil'),
      createdAt: p('now'),
      updatedAt: p('now'),
    })
    .returning()
    .prepare();
  // The fire and its launch commit together (a savepoint inside a caller's transaction); prepared once: a batch of
  // schedules due at the same instant fires one after the other.
  const fireAndLaunch = db.$client.transaction((id: number, dueAt: number, now: number, claimUntil: number) => {
    const schedule = fire.get({ id, dueAt, now });
    if (!schedule) return null;
    const { platform, workspace, channel, target, conversationId, prompt } = schedule;
    const launch = addLaunch.get({
      scheduleId: id,
      firedAt: dueAt,
      prompt,
      target,
      platform,
      workspace,
      channel,
      conversationId,
      claimUntil,
      now,
    })!;
    return { schedule, launch };
  });
  return {
    recordFire(id, dueAt, now) {
      return fire.get({ id, dueAt, now }) ?? null;
    },
    fireAndLaunch(id, dueAt, now, claimUntil) {
      return fireAndLaunch(id, dueAt, now, claimUntil);
    },
    launch(launchId) {
      return launchById.get({ id: launchId }) ?? null;
    },
    claimLaunch(launchId, now, until) {
      return (
        db
          .update(scheduleLaunches)
          .set({ notBefore: until, attempts: sql`${scheduleLaunches.attempts} + 1`, updatedAt: now })
          .where(and(pendingLaunch(launchId), lte(scheduleLaunches.notBefore, now)))
          .returning()
          .get() ?? null
      );
    },
    dueLaunches(now, limit) {
      return db
        .select({ id: scheduleLaunches.id })
        .from(scheduleLaunches)
        .where(and(eq(scheduleLaunches.status, 'pending'), lte(scheduleLaunches.notBefore, now)))
        .orderBy(asc(scheduleLaunches.id))
        .limit(limit)
        .all()
        .map((r) => r.id);
    },
    nextLaunchDue() {
      return (
        db
          .select({ at: min(scheduleLaunches.notBefore) })
          .from(scheduleLaunches)
          .where(eq(scheduleLaunches.status, 'pending'))
          .get()?.at ?? null
      );
    },
    setLaunchNote(launchId, outboxId, now) {
      const unset = outboxId === null ? sql`true` : isNull(scheduleLaunches.noteOutboxId);
      return (
        db
          .update(scheduleLaunches)
          .set({ noteOutboxId: outboxId, updatedAt: now })
          .where(and(pendingLaunch(launchId), unset))
          .run().changes === 1
      );
    },
    endLaunch(launchId, status, error, now) {
      return (
        db.update(scheduleLaunches).set({ status, error, updatedAt: now }).where(pendingLaunch(launchId)).run()
          .changes === 1
      );
    },
    delayLaunch(launchId, notBefore, error, now) {
      db.update(scheduleLaunches).set({ notBefore, error, updatedAt: now }).where(pendingLaunch(launchId)).run();
    },
    insert(row) {
      return db
        .insert(schedules)
        .values({ ...row, updatedAt: row.createdAt })
        .returning()
        .get();
    },
    get(id) {
      return byId.get({ id }) ?? null;
    },
    listInChannel(channel) {
      return db.select().from(schedules).where(inChannel(channel)).orderBy(asc(schedules.id)).all();
    },
    countActiveInChannel(channel) {
      const r = db
        .select({ n: count() })
        .from(schedules)
        .where(and(inChannel(channel), eq(schedules.status, 'active')))
        .get();
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
          .set({
            ...fields,
            ...(incrementRunCount ? { runCount: sql`${schedules.runCount} + 1` } : {}),
            updatedAt: now,
          })
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
