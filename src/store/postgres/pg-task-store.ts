import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Clock } from '../../clock.js';
import type { TaskRow, TaskStatus } from '../../db/schema.js';
import { tasks } from '../../db/pg-schema.js';
import type { TaskResult, TaskService } from '../../tasks/task-service.js';
import type { PgExecutor } from './pg-executor.js';
import { blockerProblem } from '../../tasks/blocker-problem.js';
import {
  blockedChanges,
  deleteRefusal,
  editRefusal,
  finishRefusal,
  taskNotFound,
  withoutBlocker,
} from '../../tasks/queue-rules.js';
import { withinTransaction } from './pg-within-transaction.js';
import {
  blockingOf,
  claimNextTask,
  dueWorkRead,
  finishTask,
  lockConversationRow,
  readyConversations,
  readyIn,
  taskById,
} from './pg-task-statements.js';
import { heldConversation, holdsConversation } from './pg-conversation-locks.js';

/**
 * The to-do queue on PostgreSQL, with the SQLite store's rules. Each write and its `blocked`
 * recomputation run in one transaction (a savepoint inside the caller's). Writes that read the
 * conversation's tasks first lock its conversation row (`for no key update`), so two processes
 * editing or claiming in one conversation take turns instead of acting on the same stale read.
 */
export function createPgTaskStore(db: PgExecutor, clock: Clock): TaskService {
  // A row lock lasts until the transaction ends: a conversation locked once in a transaction (by this lock or
  // by its upsert there) stays locked, so its next write there asks for nothing.
  const lockConversation = async (t: PgExecutor, conversationId: string) => {
    if (holdsConversation(t, conversationId)) return;
    await lockConversationRow(t, { id: conversationId });
    heldConversation(t, conversationId);
  };
  const byId = async (t: PgExecutor, id: number): Promise<TaskRow | null> => (await taskById(t, { id }))[0] ?? null;
  const inConversation = async (t: PgExecutor, conversationId: string, id: number) => {
    const task = await byId(t, id);
    return task && task.conversationId === conversationId ? task : null;
  };

  /** Writes the `blocked` flags the queue's rules ask for (src/tasks/queue-rules.ts). */
  const recomputeBlocked = async (t: PgExecutor, conversationId: string) => {
    for (const { id, blocked } of blockedChanges(await blockingOf(t, { conversationId })))
      await t.update(tasks).set({ blocked, updatedAt: clock.now() }).where(eq(tasks.id, id));
  };

  const checkBlockers = async (
    t: PgExecutor,
    conversationId: string,
    selfId: number | null,
    ids: number[],
  ): Promise<string | null> => {
    if (ids.length === 0) return null;
    const all = await t
      .select({ id: tasks.id, blockedBy: tasks.blockedBy })
      .from(tasks)
      .where(eq(tasks.conversationId, conversationId));
    return blockerProblem(all, selfId, ids);
  };

  /** Runs `work` in a transaction (the caller's, when it has one) holding the conversation's row lock. */
  const locked = <T>(conversationId: string, work: (t: PgExecutor) => Promise<T>): Promise<T> =>
    withinTransaction(db, async (t) => {
      await lockConversation(t, conversationId);
      return work(t);
    });

  const setFinal = (
    conversationId: string,
    id: number,
    status: TaskStatus,
    fields: { resultSummary?: string; failReason?: string },
  ): Promise<TaskResult> =>
    locked(conversationId, async (t) => {
      const now = clock.now();
      // One conditional update that hands back the row; the read that explains a refusal happens only then.
      const [finished] = await finishTask(t, {
        id,
        conversationId,
        status,
        resultSummary: fields.resultSummary ?? null,
        failReason: fields.failReason ?? null,
        now,
      });
      if (!finished) return finishRefusal(id, await inConversation(t, conversationId, id));
      const { blockersPending, ...task } = finished;
      // Recomputing touches the other pending tasks only (a finished task is never blocked): the row read back
      // stays true. No pending task with a blocker (the update's own answer): no flag can change, nothing to read.
      if (blockersPending) await recomputeBlocked(t, conversationId);
      return { ok: true, task };
    });

  /** Whether one conversation has a ready task and no active run (findReadyConversations' `prefer`). */
  const readyHere = async (conversationId: string): Promise<boolean> => {
    const [row] = await readyIn(db, { conversationId, now: clock.now() });
    return row !== undefined;
  };
  return {
    add(n) {
      return locked(n.conversationId, async (t) => {
        const blockedBy = [...new Set(n.blockedBy ?? [])];
        const problem = await checkBlockers(t, n.conversationId, null, blockedBy);
        if (problem) return { ok: false, error: problem };
        const now = clock.now();
        const [row] = await t
          .insert(tasks)
          .values({
            conversationId: n.conversationId,
            title: n.title,
            description: n.description,
            sequence: sql`(select coalesce(max(sequence), 0) + 1 from tasks where conversation_id = ${n.conversationId})`,
            blockedBy,
            createdBy: n.createdBy,
            requestedBy: n.requestedBy ?? null,
            requesterRoles: n.requesterRoles && n.requesterRoles.length > 0 ? [...n.requesterRoles] : null,
            fromSchedule: n.fromSchedule === true,
            sourceMessageId: n.sourceMessageId ?? null,
            scheduleId: n.scheduleId ?? null,
            createdAt: now,
            updatedAt: now,
          })
          .returning();
        if (blockedBy.length === 0) return { ok: true, task: row! };
        await recomputeBlocked(t, n.conversationId);
        return { ok: true, task: (await byId(t, row!.id))! };
      });
    },
    get: (id) => byId(db, id),
    async list(conversationId) {
      return db.select().from(tasks).where(eq(tasks.conversationId, conversationId)).orderBy(asc(tasks.sequence));
    },
    update(conversationId, id, edit) {
      return locked(conversationId, async (t) => {
        const task = await inConversation(t, conversationId, id);
        if (!task) return taskNotFound(id);
        const refused = editRefusal(id, task);
        if (refused) return refused;
        const add = [...new Set(edit.addBlockedBy ?? [])].filter((b) => !task.blockedBy.includes(b));
        const problem = await checkBlockers(t, conversationId, id, add);
        if (problem) return { ok: false, error: problem };
        await t
          .update(tasks)
          .set({
            ...(edit.title !== undefined ? { title: edit.title } : {}),
            ...(edit.description !== undefined ? { description: edit.description } : {}),
            blockedBy: [...task.blockedBy, ...add],
            updatedAt: clock.now(),
          })
          .where(eq(tasks.id, id));
        await recomputeBlocked(t, conversationId);
        return { ok: true, task: (await byId(t, id))! };
      });
    },
    complete: (c, id, summary) => setFinal(c, id, 'completed', { resultSummary: summary }),
    fail: (c, id, reason) => setFinal(c, id, 'failed', { failReason: reason }),
    cancel: (c, id) => setFinal(c, id, 'cancelled', {}),
    delete(conversationId, id) {
      return locked(conversationId, async (t) => {
        const task = await inConversation(t, conversationId, id);
        if (!task) return taskNotFound(id);
        const refused = deleteRefusal(id, task);
        if (refused) return refused;
        await t.delete(tasks).where(eq(tasks.id, id));
        const others = await t
          .select({ id: tasks.id, blockedBy: tasks.blockedBy })
          .from(tasks)
          .where(eq(tasks.conversationId, conversationId));
        for (const other of withoutBlocker(others, id))
          await t.update(tasks).set({ blockedBy: other.blockedBy }).where(eq(tasks.id, other.id));
        await recomputeBlocked(t, conversationId);
        return { ok: true, task };
      });
    },
    async cancelPending(conversationId) {
      const now = clock.now();
      const rows = await db
        .update(tasks)
        .set({ status: 'cancelled', updatedAt: now, finishedAt: now })
        .where(and(eq(tasks.conversationId, conversationId), eq(tasks.status, 'pending')))
        .returning({ id: tasks.id });
      return rows.length;
    },
    claimNext(conversationId) {
      // The conversation lock orders claimers; `skip locked` keeps a claimer off a task row another
      // transaction is writing, so no task is ever handed to two processes.
      return locked(conversationId, async (t) => {
        const [claimed] = await claimNextTask(t, { conversationId, now: clock.now() });
        return claimed ?? null;
      });
    },
    async requeue(id, notBefore, failReason) {
      await db
        .update(tasks)
        .set({
          status: 'pending',
          notBefore,
          updatedAt: clock.now(),
          ...(failReason !== undefined ? { failReason } : {}),
        })
        .where(and(eq(tasks.id, id), inArray(tasks.status, ['in_progress', 'pending'])));
    },
    async findReadyConversations(limit, exclude, prefer) {
      if (limit <= 0) return [];
      const first = prefer !== undefined && !exclude.has(prefer) && (await readyHere(prefer)) ? [prefer] : [];
      if (first.length >= limit) return first;
      const skip = prefer !== undefined ? new Set([...exclude, prefer]) : exclude;
      const rows = await readyConversations(db, [clock.now(), [...skip], limit - first.length]);
      return [...first, ...rows.map((r) => r.id)];
    },
    async dueWork(limit, exclude, prefer) {
      const asked = prefer !== undefined && !exclude.has(prefer) ? prefer : null;
      const skip = prefer !== undefined ? [...exclude, prefer] : [...exclude];
      const [row] = await dueWorkRead(db, [clock.now(), asked, skip, Math.max(limit, 0)]);
      if (!row) throw new Error('the due-work read answered no row');
      const ready = asked !== null && row.here ? [asked, ...row.ready] : row.ready;
      return { questionsDue: row.due, ready: ready.slice(0, Math.max(limit, 0)) };
    },
  };
}
