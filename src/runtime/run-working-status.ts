import { onlyChanges, type ActivityReport } from '../agent/run-activity.js';
import { stopActionId } from '../chat/action-id.js';
import type { WorkingStatus } from '../chat/chat-adapter.js';
import type { ConversationRef } from '../chat/conversation-ref.js';
import type { Presence } from '../chat/presence.js';
import type { TaskRow } from '../db/schema.js';
import type { Logger } from '../logger.js';

/**
 * A run's "working" status on its platform (reaction, typing, Slack's status line, a Stop button): shown at
 * the launch, updated with each step, cleared when the run ends. A failure to show it is logged, never a
 * reason to fail the run.
 */
export interface RunWorkingStatus {
  /** Shows that the run has started. */
  show(): void;
  /** Each step's activity; only changes reach the platform, so it stays cheap. */
  readonly activity: ActivityReport;
  /** Takes the status away: the run has ended (or stopped working here). */
  clear(): void;
}

/** The working status of run `runId`, shown through the presence port (the only way status reaches a platform). */
export function runWorkingStatus(presence: Pick<Presence, 'setWorking'>, ref: ConversationRef, runId: string, task: TaskRow | null, logger: Logger): RunWorkingStatus {
  const working: WorkingStatus = { runId, stopActionId: stopActionId(runId), ...(task?.sourceMessageId ? { sourceMessageId: task.sourceMessageId } : {}) };
  const showWorking = (status: WorkingStatus) => presence.setWorking(ref, status).catch((err: unknown) => logger.warn({ err }, 'showing the working status failed'));
  return {
    show: () => void showWorking(working),
    activity: onlyChanges((a) => void showWorking({ ...working, ...a })),
    clear: () => void presence.setWorking(ref, null).catch((err: unknown) => logger.warn({ err }, 'clearing the working status failed')),
  };
}
