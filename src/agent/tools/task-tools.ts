import { z } from 'zod';
import type { AccessPolicy } from '../../access/access-policy.js';
import { mayChangeTask } from '../../access/task-rights.js';
import type { Task } from '../../tasks/task-service.js';
import type { TaskResult, TaskService } from '../../tasks/task-service.js';
import { defineTool, fail, ok, type ToolContext, type ToolOutcome } from './tool.js';

const taskId = z.number({ message: 'task_id must be a number (see list_tasks)' }).int().positive();

/** The shape the model sees for a task. */
export function taskView(t: Task) {
  return {
    id: t.id,
    title: t.title,
    ...(t.description !== t.title ? { description: t.description } : {}),
    status: t.status,
    ...(t.blockedBy.length > 0 ? { blocked_by: t.blockedBy, waiting_for_blockers: t.blocked } : {}),
    ...(t.resultSummary ? { result_summary: t.resultSummary } : {}),
    ...(t.failReason ? { fail_reason: t.failReason } : {}),
    created_by: t.createdBy,
  };
}

const result = async (pending: Promise<TaskResult>): Promise<ToolOutcome> => {
  const r = await pending;
  return r.ok ? ok({ task: taskView(r.task) }) : fail(r.error);
};

/** What the model reads when the to-do is another person's: who may change it, and what to do instead. */
export const notYourTaskError = (id: number, owner: string, principal: string | null): string =>
  `Task #${id} was asked for by ${owner}${principal ? `, and this run acts for ${principal}` : ''}: only ${owner} (or an admin) may change, complete, fail or delete it. Leave it as it is; if the person wants it changed, tell them to ask ${owner}, or add a new to-do of their own with add_task.`;

/**
 * To-do list tools, scoped to the calling run's conversation. A to-do acts for its principal, so the tools that
 * change one (update, complete, fail, delete) act only on the run's principal's own to-dos, or for an admin.
 */
export function createTaskTools(tasks: TaskService, access: Pick<AccessPolicy, 'configured' | 'isAdmin'>) {
  /** Runs `change` when the run's principal may change task `id` of this conversation; otherwise the refusal. */
  const owned = async (id: number, ctx: ToolContext, change: () => Promise<ToolOutcome>): Promise<ToolOutcome> => {
    const task = await tasks.get(id);
    const principal =
      ctx.principal ?? (ctx.userId ? { platform: ctx.conversation.platform, userId: ctx.userId } : null);
    // A task of another conversation (or none) is left to the change itself, which says there is no such task here.
    if (task && task.conversationId === ctx.conversationId && !mayChangeTask(task.requestedBy, principal, access)) {
      return fail(notYourTaskError(id, task.requestedBy ?? 'nobody in particular', principal?.userId ?? null));
    }
    return change();
  };
  return [
    defineTool({
      name: 'add_task',
      description:
        'Append a to-do item to this conversation. Items run one at a time, in order, after the current run ends; blocked_by lists task ids that must be completed first.',
      parameters: z.object({
        title: z.string().trim().min(1, 'title must not be empty').max(200),
        description: z.string().trim().max(8000).optional(),
        blocked_by: z.array(taskId).max(20).optional(),
      }),
      execute: ({ title, description, blocked_by }, ctx) =>
        result(
          tasks.add({
            conversationId: ctx.conversationId,
            title,
            description: description && description.length > 0 ? description : title,
            createdBy: 'agent',
            // A to-do acts for the principal of the run that added it, and keeps a scheduled prompt's limits.
            requestedBy: ctx.principal?.userId ?? ctx.userId,
            requesterRoles: ctx.principal?.roles ?? null,
            fromSchedule: ctx.scheduled === true,
            blockedBy: blocked_by ?? [],
          }),
        ),
    }),
    defineTool({
      name: 'list_tasks',
      description: "This conversation's to-do list with ids, status and blockers.",
      parameters: z.object({}),
      execute: async (_args, ctx) => {
        const all = await tasks.list(ctx.conversationId);
        const open = all.filter((t) => t.status === 'pending' || t.status === 'in_progress');
        const recent = all.filter((t) => t.status !== 'pending' && t.status !== 'in_progress').slice(-20);
        return ok({ current_task_id: ctx.taskId, tasks: [...recent, ...open].map(taskView) });
      },
    }),
    defineTool({
      name: 'update_task',
      description: 'Edit a pending or in-progress task: new title, new description, or more blockers (add_blocked_by).',
      parameters: z.object({
        task_id: taskId,
        title: z.string().trim().min(1).max(200).optional(),
        description: z.string().trim().min(1).max(8000).optional(),
        add_blocked_by: z.array(taskId).max(20).optional(),
      }),
      execute: ({ task_id, title, description, add_blocked_by }, ctx) =>
        owned(task_id, ctx, () =>
          result(tasks.update(ctx.conversationId, task_id, { title, description, addBlockedBy: add_blocked_by })),
        ),
    }),
    defineTool({
      name: 'complete_task',
      description: 'Mark a task completed with a short result summary.',
      parameters: z.object({
        task_id: taskId,
        result_summary: z.string().trim().min(1, 'result_summary must not be empty').max(4000),
      }),
      execute: ({ task_id, result_summary }, ctx) =>
        owned(task_id, ctx, () => result(tasks.complete(ctx.conversationId, task_id, result_summary))),
    }),
    defineTool({
      name: 'fail_task',
      description: 'Mark a task failed, saying why.',
      parameters: z.object({ task_id: taskId, reason: z.string().trim().min(1, 'reason must not be empty').max(2000) }),
      execute: ({ task_id, reason }, ctx) =>
        owned(task_id, ctx, () => result(tasks.fail(ctx.conversationId, task_id, reason))),
    }),
    defineTool({
      name: 'delete_task',
      description: 'Remove a task that is not in progress. Tasks it blocked are unblocked.',
      parameters: z.object({ task_id: taskId }),
      execute: ({ task_id }, ctx) =>
        owned(task_id, ctx, async () => {
          const r = await tasks.delete(ctx.conversationId, task_id);
          return r.ok ? ok({ deleted: task_id }) : fail(r.error);
        }),
    }),
  ];
}
