import type { RunPosts } from '../agent/agent-types.js';
import type { Logger } from '../logger.js';
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
 * started by this very process would be taken for a dead one. A preview of an answer that was being
 * written when the process died is removed from the thread (`RunPosts.retractPreviews`): the run answers again.
 */
export async function requeueInterruptedRuns(deps: { posts: RunPosts; logger: Logger; maxAttempts: number }): Promise<InterruptedRun[]> {
  const result = await deps.posts.atomically(async (tx) => {
    const recovered: InterruptedRun[] = [];
    for (const run of await tx.runs.interruptAllRunning()) {
      // Before the note and anything the run posts again: its half-written preview is taken back first.
      await deps.posts.retractPreviews(run.id, tx);
      const task = run.taskId !== null ? await tx.tasks.get(run.taskId) : null;
      const attempts = task?.attempts ?? 0;
      if (task && task.status === 'in_progress' && attempts >= deps.maxAttempts) {
        await tx.tasks.fail(run.conversationId, task.id, `Interrupted by restarts ${attempts} times.`);
        deps.logger.warn({ taskId: task.id, attempts }, 'a task was interrupted by restarts too often; failed it');
        await deps.posts.record(run.conversationId, run.id, { purpose: 'note', text: notices.restartLimit(task.id, attempts) }, tx);
        recovered.push({ conversationId: run.conversationId, taskId: task.id, action: 'gave_up', attempts });
        continue;
      }
      if (run.taskId !== null) await tx.tasks.requeue(run.taskId, 0);
      await deps.posts.record(run.conversationId, run.id, { purpose: 'note', text: notices.restarted(run.taskId) }, tx);
      recovered.push({ conversationId: run.conversationId, taskId: run.taskId, action: 'resumed', attempts });
    }
    return recovered;
  });
  if (result.length > 0) deps.logger.info({ count: result.length }, 'interrupted runs recovered');
  return result;
}
