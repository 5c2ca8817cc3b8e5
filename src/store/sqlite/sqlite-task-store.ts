import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Clock } from '../../clock.js';
import type { Db } from '../../db/client.js';
import { tasks, type TaskRow, type TaskStatus } from '../../db/schema.js';
import type { TaskResult, TaskService } from '../../tasks/task-service.js';
import { TASK_COLUMNS, taskFromRaw } from './raw-rows.js';
import type { Synchronous } from './synchronous.js';
import { writeGroup } from './write-group.js';
import { blockerProblem } from '../../tasks/blocker-problem.js';
import {
  blockedChanges,
  deleteRefusal,
  editRefusal,
  finishRefusal,
  taskNotFound,
  withoutBlocker,
} from '../../tasks/queue-rules.js';

/** The to-do queue on SQLite: each write and its `blocked` recomputation in one (nested) transaction. */

export function createSqliteTaskStore(db: Db, clock: Clock): Synchronous<TaskService> {
  const sqlite = db.$client;
  const atomic = writeGroup(sqlite);
  const readyStmt = sqlite.prepare(
    `select t.conversation_id as id from tasks t indexed by tasks_ready_idx
     where t.status = 'pending' and t.blocked = 0 and t.not_before <= ?
       and not exists (select 1 from runs r where r.conversation_id = t.conversation_id and r.status in ('running', 'waiting_user'))`,
  );
  // The same test for one conversation: whether the conversation whose run just ended goes first. The `in`
  // term lets SQLite use the partial tasks_open_idx (open tasks only), not every task the conversation ever had.
  const readyHereStmt = sqlite
    .prepare(
      `select 1 from tasks t where t.conversation_id = ? and t.status in ('pending', 'in_progress') and t.status = 'pending' and t.blocked = 0 and t.not_before <= ?
       and not exists (select 1 from runs r where r.conversation_id = t.conversation_id and r.status in ('running', 'waiting_user')) limit 1`,
    )
    .pluck();
  // Raw statements (rows mapped by position in raw-rows.ts): a message claims and reads its task several times.
  const byIdStmt = sqlite.prepare(`select ${TASK_COLUMNS} from tasks where id = ?`).raw();
  // The claim in one statement that hands back the row it wrote: the conversation's first ready task, unless
  // one of its tasks is in progress already.
  const claimStmt = sqlite
    .prepare(
      `update tasks set status = 'in_progress', attempts = attempts + 1, started_at = @now, updated_at = @now
       where id = (select id from tasks where conversation_id = @c and status = 'pending' and blocked = 0 and not_before <= @now order by sequence asc limit 1)
         and not exists (select 1 from tasks where conversation_id = @c and status = 'in_progress')
       returning ${TASK_COLUMNS}`,
    )
    .raw();
  const anyDependentStmt = sqlite.prepare(
    "select 1 from tasks where conversation_id = ? and status = 'pending' and (blocked_by != '[]' or blocked = 1) limit 1",
  );
  // The next sequence number is taken in the insert itself (one statement on the message path).
  const insertStmt = sqlite
    .prepare(
      `insert into tasks (conversation_id, title, description, sequence, blocked_by, created_by, requested_by, source_message_id, schedule_id, created_at, updated_at, requester_roles, from_schedule)
       values (@c, @title, @description, (select coalesce(max(sequence), 0) + 1 from tasks where conversation_id = @c), @blockedBy, @createdBy, @requestedBy,
               @sourceMessageId, @scheduleId, @now, @now, @roles, @fromSchedule) returning ${TASK_COLUMNS}`,
    )
    .raw();
  // Conditional on the task being this conversation's and not finished otherwise, so the usual case needs no read first.
  const finishStmt = sqlite
    .prepare(
      `update tasks set status = @status, result_summary = coalesce(@summary, result_summary), fail_reason = coalesce(@reason, fail_reason), updated_at = @now, finished_at = @now
     where id = @id and conversation_id = @c and (status not in ('completed', 'failed', 'cancelled') or status = @status) returning ${TASK_COLUMNS}`,
    )
    .raw();
  const byId = (id: number): TaskRow | null => {
    const raw = byIdStmt.get(id) as unknown[] | undefined;
    return raw ? taskFromRaw(raw) : null;
  };
  const inConversation = (conversationId: string, id: number): TaskRow | null => {
    const t = byId(id);
    return t && t.conversationId === conversationId ? t : null;
  };
  /** Writes the `blocked` flags the queue's rules ask for (src/tasks/queue-rules.ts). */
  const recomputeBlocked = (conversationId: string) => {
    if (!anyDependentStmt.get(conversationId)) return;
    const all = db
      .select({ id: tasks.id, status: tasks.status, blockedBy: tasks.blockedBy, blocked: tasks.blocked })
      .from(tasks)
      .where(eq(tasks.conversationId, conversationId))
      .all();
    for (const { id, blocked } of blockedChanges(all))
      db.update(tasks).set({ blocked, updatedAt: clock.now() }).where(eq(tasks.id, id)).run();
  };

  const checkBlockers = (conversationId: string, selfId: number | null, ids: number[]): string | null => {
    if (ids.length === 0) return null;
    const all = db
      .select({ id: tasks.id, blockedBy: tasks.blockedBy })
      .from(tasks)
      .where(eq(tasks.conversationId, conversationId))
      .all();
    return blockerProblem(all, selfId, ids);
  };

  const setFinal = (conversationId: string, id: number, status: TaskStatus, fields: Partial<TaskRow>): TaskResult => {
    return atomic(() => {
      const raw = finishStmt.get({
        status,
        summary: fields.resultSummary ?? null,
        reason: fields.failReason ?? null,
        now: clock.now(),
        id,
        c: conversationId,
      }) as unknown[] | undefined;
      if (!raw) return finishRefusal(id, inConversation(conversationId, id));
      const finished = taskFromRaw(raw);
      // Recomputing touches the other pending tasks only (a finished task is never blocked): the row read back stays true.
      recomputeBlocked(conversationId);
      return { ok: true, task: finished };
    });
  };

  return {
    add(n) {
      return atomic(() => {
        const blockedBy = [...new Set(n.blockedBy ?? [])];
        const problem = checkBlockers(n.conversationId, null, blockedBy);
        if (problem) return { ok: false, error: problem };
        const now = clock.now();
        const raw = insertStmt.get({
          c: n.conversationId,
          title: n.title,
          description: n.description,
          blockedBy: JSON.stringify(blockedBy),
          createdBy: n.createdBy,
          requestedBy: n.requestedBy ?? null,
          sourceMessageId: n.sourceMessageId ?? null,
          scheduleId: n.scheduleId ?? null,
          now,
          roles: n.requesterRoles && n.requesterRoles.length > 0 ? JSON.stringify(n.requesterRoles) : null,
          fromSchedule: n.fromSchedule === true ? 1 : 0,
        }) as unknown[];
        const added = taskFromRaw(raw);
        if (blockedBy.length === 0) return { ok: true, task: added };
        // Its own `blocked` is decided here: read it back.
        recomputeBlocked(n.conversationId);
        return { ok: true, task: byId(added.id)! };
      });
    },
    get: byId,
    list(conversationId) {
      return db.select().from(tasks).where(eq(tasks.conversationId, conversationId)).orderBy(asc(tasks.sequence)).all();
    },
    update(conversationId, id, edit) {
      return atomic(() => {
        const t = inConversation(conversationId, id);
        if (!t) return taskNotFound(id);
        const refused = editRefusal(id, t);
        if (refused) return refused;
        const add = [...new Set(edit.addBlockedBy ?? [])].filter((b) => !t.blockedBy.includes(b));
        const problem = checkBlockers(conversationId, id, add);
        if (problem) return { ok: false, error: problem };
        db.update(tasks)
          .set({
            ...(edit.title !== undefined ? { title: edit.title } : {}),
            ...(edit.description !== undefined ? { description: edit.description } : {}),
            blockedBy: [...t.blockedBy, ...add],
            updatedAt: clock.now(),
          })
          .where(eq(tasks.id, id))
          .run();
        recomputeBlocked(conversationId);
        return { ok: true, task: byId(id)! };
      });
    },
    complete: (c, id, summary) => setFinal(c, id, 'completed', { resultSummary: summary }),
    fail: (c, id, reason) => setFinal(c, id, 'failed', { failReason: reason }),
    cancel: (c, id) => setFinal(c, id, 'cancelled', {}),
    delete(conversationId, id) {
      return atomic(() => {
        const t = inConversation(conversationId, id);
        if (!t) return taskNotFound(id);
        const refused = deleteRefusal(id, t);
        if (refused) return refused;
        db.delete(tasks).where(eq(tasks.id, id)).run();
        for (const other of withoutBlocker(this.list(conversationId), id))
          db.update(tasks).set({ blockedBy: other.blockedBy }).where(eq(tasks.id, other.id)).run();
        recomputeBlocked(conversationId);
        return { ok: true, task: t };
      });
    },
    cancelPending(conversationId) {
      return atomic(() => {
        const now = clock.now();
        const res = db
          .update(tasks)
          .set({ status: 'cancelled', updatedAt: now, finishedAt: now })
          .where(and(eq(tasks.conversationId, conversationId), eq(tasks.status, 'pending')))
          .run();
        return res.changes;
      });
    },
    claimNext(conversationId) {
      const raw = claimStmt.get({ c: conversationId, now: clock.now() }) as unknown[] | undefined;
      return raw ? taskFromRaw(raw) : null;
    },
    requeue(id, notBefore, failReason) {
      db.update(tasks)
        .set({
          status: 'pending',
          notBefore,
          updatedAt: clock.now(),
          ...(failReason !== undefined ? { failReason } : {}),
        })
        .where(and(eq(tasks.id, id), inArray(tasks.status, ['in_progress', 'pending'])))
        .run();
    },
    findReadyConversations(limit, exclude, prefer) {
      const found: string[] = [];
      if (limit <= 0) return found;
      const now = clock.now();
      const seen = new Set<string>();
      if (prefer !== undefined) {
        seen.add(prefer);
        if (!exclude.has(prefer) && readyHereStmt.get(prefer, now) !== undefined) found.push(prefer);
        if (found.length >= limit) return found;
      }
      for (const row of readyStmt.iterate(now) as IterableIterator<{ id: string }>) {
        if (seen.has(row.id) || exclude.has(row.id)) continue;
        seen.add(row.id);
        found.push(row.id);
        if (found.length >= limit) break;
      }
      return found;
    },
  };
}
