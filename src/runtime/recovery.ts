import type { ChatAdapter } from '../chat/chat-adapter.js';
import type { ConversationStore } from '../conversations/conversation-store.js';
import type { Logger } from '../logger.js';
import type { RunStore } from '../runs/run-store.js';
import type { TaskService } from '../tasks/task-service.js';

/**
 * After a restart: runs that were `running` died with the process. Each is marked `interrupted`,
 * its task goes back to pending (it resumes from the transcript) and the thread gets a note.
 * Waiting runs are left alone: the answer still resumes them.
 */
export async function recoverInterruptedRuns(deps: {
  runs: RunStore;
  tasks: TaskService;
  conversations: ConversationStore;
  adapters: ReadonlyMap<string, ChatAdapter>;
  logger: Logger;
}): Promise<number> {
  const interrupted = deps.runs.interruptAllRunning();
  for (const run of interrupted) {
    if (run.taskId !== null) deps.tasks.requeue(run.taskId, 0);
    const ref = deps.conversations.refOf(run.conversationId);
    const adapter = ref ? deps.adapters.get(ref.platform) : undefined;
    if (ref && adapter) {
      await adapter
        .postMessage(ref, { text: `🔄 I was restarted while working${run.taskId !== null ? ` on task #${run.taskId}` : ''}; picking it back up.` })
        .catch((err: unknown) => deps.logger.warn({ err }, 'posting the restart note failed'));
    }
  }
  if (interrupted.length > 0) deps.logger.info({ count: interrupted.length }, 'interrupted runs re-queued');
  return interrupted.length;
}
