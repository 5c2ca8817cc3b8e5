import type { TaskRow, TaskStatus } from '../db/schema.js';
import type { TaskResult } from './task-service.js';

/**
 * The to-do queue's rules, written once for both stores: each store reads and writes rows its own way
 * (SQLite synchronously, PostgreSQL inside a transaction with the conversation locked) and asks these
 * what to write and what to tell the model, so the two can never drift apart.
 */

/** A task in one of these is done with: it is never claimed, edited or blocked again. */
export const FINISHED_STATUSES: readonly TaskStatus[] = ['completed', 'failed', 'cancelled'];

/** The refusal for an id that names no task of the conversation. */
export function taskNotFound(id: number): TaskResult {
  return { ok: false, error: `No task #${id} in this conversation. Call list_tasks to see the ids.` };
}

/**
 * Why a finish (complete, fail, cancel) wrote nothing: the task is another conversation's or unknown
 * (`task` null), or it was finished otherwise already.
 */
export function finishRefusal(id: number, task: Pick<TaskRow, 'status'> | null): TaskResult {
  return task ? { ok: false, error: `Task #${id} is already ${task.status}.` } : taskNotFound(id);
}

/** Why a task may not be edited, or null when it may: only pending and in-progress tasks change. */
export function editRefusal(id: number, task: Pick<TaskRow, 'status'>): TaskResult | null {
  return FINISHED_STATUSES.includes(task.status)
    ? { ok: false, error: `Task #${id} is ${task.status}; only pending or in-progress tasks can be edited.` }
    : null;
}

/** Why a task may not be deleted, or null when it may: a task in progress is stopped or finished first. */
export function deleteRefusal(id: number, task: Pick<TaskRow, 'status'>): TaskResult | null {
  return task.status === 'in_progress'
    ? { ok: false, error: `Task #${id} is in progress; stop it (or finish it) before deleting it.` }
    : null;
}

type Blocking = Pick<TaskRow, 'id' | 'status' | 'blockedBy' | 'blocked'>;

/**
 * The pending tasks whose `blocked` flag must change, given every task of their conversation: a task is
 * blocked while any of its blockers still exists and has not completed (a failed or cancelled blocker keeps
 * it blocked: the model decides what then). The flag is what the heartbeat's "ready" index reads.
 */
export function blockedChanges(tasksOfConversation: readonly Blocking[]): { id: number; blocked: boolean }[] {
  const status = new Map(tasksOfConversation.map((t) => [t.id, t.status]));
  const changes: { id: number; blocked: boolean }[] = [];
  for (const t of tasksOfConversation) {
    if (t.status !== 'pending') continue;
    const blocked = t.blockedBy.some((b) => status.has(b) && status.get(b) !== 'completed');
    if (blocked !== t.blocked) changes.push({ id: t.id, blocked });
  }
  return changes;
}

/** The tasks that named `deletedId` as a blocker, with their `blocked_by` lists without it. */
export function withoutBlocker(
  tasksOfConversation: readonly Pick<TaskRow, 'id' | 'blockedBy'>[],
  deletedId: number,
): { id: number; blockedBy: number[] }[] {
  return tasksOfConversation
    .filter((t) => t.blockedBy.includes(deletedId))
    .map((t) => ({ id: t.id, blockedBy: t.blockedBy.filter((b) => b !== deletedId) }));
}
