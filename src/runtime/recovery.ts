import type { ChatAdapter } from '../chat/chat-adapter.js';
import type { ConversationStore } from '../conversations/conversation-store.js';
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
 * alone: the answer still resumes them. This must run before any adapter delivers an event, or a run
 * started by this very process would be taken for a dead one.
 */
export function requeueInterruptedRuns(deps: { runs: RunStore; tasks: TaskService; logger: Logger; maxAttempts: number }): InterruptedRun[] {
  const result: InterruptedRun[] = [];
  for (const run of deps.runs.interruptAllRunning()) {
    const task = run.taskId !== null ? deps.tasks.get(run.taskId) : null;
    const attempts = task?.attempts ?? 0;
    if (task && task.status === 'in_progress' && attempts >= deps.maxAttempts) {
      deps.tasks.fail(run.conversationId, task.id, `Interrupted by restarts ${attempts} times.`);
      deps.logger.warn({ taskId: task.id, attempts }, 'a task was interrupted by restarts too often; failed it');
      result.push({ conversationId: run.conversationId, taskId: task.id, action: 'gave_up', attempts });
      continue;
    }
    if (run.taskId !== null) deps.tasks.requeue(run.taskId, 0);
    result.push({ conversationId: run.conversationId, taskId: run.taskId, action: 'resumed', attempts });
  }
  if (result.length > 0) deps.logger.info({ count: result.length }, 'interrupted runs recovered');
  return result;
}

/** Tells each thread whose run was interrupted what happens next (adapters connected). */
export async function announceInterruptedRuns(
  interrupted: readonly InterruptedRun[],
  deps: { conversations: ConversationStore; adapters: ReadonlyMap<string, ChatAdapter>; logger: Logger },
): Promise<void> {
  for (const run of interrupted) {
    const ref = deps.conversations.refOf(run.conversationId);
    const adapter = ref ? deps.adapters.get(ref.platform) : undefined;
    if (!ref || !adapter) continue;
    const text = run.action === 'resumed' ? notices.restarted(run.taskId) : notices.restartLimit(run.taskId, run.attempts);
    await adapter.postMessage(ref, { text }).catch((err: unknown) => deps.logger.warn({ err }, 'posting the restart note failed'));
  }
}
