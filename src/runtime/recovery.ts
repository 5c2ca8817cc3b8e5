import type { ChatAdapter } from '../chat/chat-adapter.js';
import type { ConversationStore } from '../conversations/conversation-store.js';
import type { RunRow } from '../db/schema.js';
import type { Logger } from '../logger.js';
import type { RunStore } from '../runs/run-store.js';
import type { TaskService } from '../tasks/task-service.js';

/**
 * After a restart, runs that were `running` died with the process. Each is marked `interrupted`
 * and its task goes back to pending (it resumes from the transcript). Waiting runs are left
 * alone: the answer still resumes them. This must run before any adapter delivers an event,
 * or a run started by this very process would be taken for a dead one.
 */
export function requeueInterruptedRuns(deps: { runs: RunStore; tasks: TaskService; logger: Logger }): RunRow[] {
  const interrupted = deps.runs.interruptAllRunning();
  for (const run of interrupted) if (run.taskId !== null) deps.tasks.requeue(run.taskId, 0);
  if (interrupted.length > 0) deps.logger.info({ count: interrupted.length }, 'interrupted runs re-queued');
  return interrupted;
}

/** Tells each thread whose run was interrupted that the work is being picked back up (adapters connected). */
export async function announceInterruptedRuns(
  interrupted: readonly RunRow[],
  deps: { conversations: ConversationStore; adapters: ReadonlyMap<string, ChatAdapter>; logger: Logger },
): Promise<void> {
  for (const run of interrupted) {
    const ref = deps.conversations.refOf(run.conversationId);
    const adapter = ref ? deps.adapters.get(ref.platform) : undefined;
    if (!ref || !adapter) continue;
    await adapter
      .postMessage(ref, { text: `🔄 I was restarted while working${run.taskId !== null ? ` on task #${run.taskId}` : ''}; picking it back up.` })
      .catch((err: unknown) => deps.logger.warn({ err }, 'posting the restart note failed'));
  }
}
