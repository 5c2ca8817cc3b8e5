import type { RunPosts } from '../agent/agent-types.js';
import type { Logger } from '../logger.js';
import type { RunStore } from '../runs/run-store.js';
import type { TaskService } from '../tasks/task-service.js';
import { notices } from './run-notices.js';

/** A run that died with the process, and what recovery did with its task. */
export interface InterruptedRun {
  readonly conversationId: string;
  readonly taskId: number | null;
  /** `resumed`: re-queued; `gave_up`: the task had been interrupted `attempts` times and was failed. */
  readonly action: 'resumed' | 'gave_up';
  readonly attempts: number;
}

/**
 * After a restart, runs that were `running` died with the process. Each is marked `interrupted` and
 * its task goes back to pending (it resumes from the transcript), unless the task has used up its
 * attempts: a task that crashes the process would otherwise restart it forever. Waiting runs are left
 * alone: the answer still resumes them. The note telling each thread what happens next is recorded in
 * the same transaction, so a crash during recovery neither loses it nor repeats it; the outbox posts
 * it after what was still pending there. This must run before any adapter delivers an event, or a run
 * started by this very process would be taken for a dead one.
 */
export function requeueInterruptedRuns(deps: { runs: RunStore; tasks: TaskService; posts: RunPosts; logger: Logger; maxAttempts: number }): InterruptedRun[] {
  const result = deps.posts.atomically(() => {
    const recovered: InterruptedRun[] = [];
    for (const run of deps.runs.interruptAllRunning()) {
      const task = run.taskId !== null ? deps.tasks.get(run.taskId) : null;
      const attempts = task?.attempts ?? 0;
      if (task && task.status === 'in_progress' && attempts >= deps.maxAttempts) {
        deps.tasks.fail(run.conversationId, task.id, `Interrupted by restarts ${attempts} times.`);
        deps.logger.warn({ taskId: task.id, attempts }, 'a task was interrupted by restarts too often; failed it');
        deps.posts.record(run.conversationId, run.id, { purpose: 'note', text: notices.restartLimit(task.id, attempts) });
        recovered.push({ conversationId: run.conversationId, taskId: task.id, action: 'gave_up', attempts });
        continue;
      }
      if (run.taskId !== null) deps.tasks.requeue(run.taskId, 0);
      deps.posts.record(run.conversationId, run.id, { purpose: 'note', text: notices.restarted(run.taskId) });
      recovered.push({ conversationId: run.conversationId, taskId: run.taskId, action: 'resumed', attempts });
    }
    return recovered;
  });
  if (result.length > 0) deps.logger.info({ count: result.length }, 'interrupted runs recovered');
  return result;
}
