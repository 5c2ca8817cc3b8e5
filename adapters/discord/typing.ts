import type { WorkingStatus } from '../../src/chat/chat-adapter.js';
import type { Logger } from '../../src/logger.js';
import { createWorkingIndicator as createSharedIndicator, type WorkingSignal } from '../../src/chat/working-indicator.js';

/** Discord shows "typing…" for 10 s per request; refreshing every 8 s keeps it steady. */
export const TYPING_INTERVAL_MS = 8000;
/**
 * Answers quicker than this never show "typing…" (as on Slack, where the working reaction waits as
 * long): the request would only compete with the answer for the event loop and the REST queue.
 */
export const TYPING_DELAY_MS = 400;
/** Runs that finish quickly never show the Stop notice: it appears only after this long. */
export const WORKING_NOTICE_DELAY_MS = 2000;

export interface WorkingIndicatorDeps {
  sendTyping(channelId: string): Promise<void>;
  /** Posts the "Working…" notice with a Stop button; resolves to its message id. */
  postNotice(channelId: string, stopActionId: string): Promise<string>;
  deleteNotice(channelId: string, messageId: string): Promise<void>;
  logger: Logger;
  typingIntervalMs?: number;
  /** Wait before the first typing request (0: at once). */
  typingDelayMs?: number;
  noticeDelayMs?: number;
}

export interface WorkingIndicator {
  /** Starts (status) or ends (null) the indicator for a channel; returns at once, never throws. */
  set(channelId: string, status: WorkingStatus | null): void;
  /** Ends every indicator and removes posted notices. */
  stopAll(): Promise<void>;
}

/**
 * What Discord users see while Errand works: the typing indicator (once the run took longer than a quick
 * answer), refreshed while the run is active, and — only when the run is still going after a couple of
 * seconds — a small "Working…" message with a Stop button, removed when the work ends. Built on the shared
 * skeleton in src/chat/working-indicator.ts; nothing here is awaited by the caller.
 */
export function createWorkingIndicator(deps: WorkingIndicatorDeps): WorkingIndicator {
  const indicator = createSharedIndicator(deps.logger);
  const typingEvery = deps.typingIntervalMs ?? TYPING_INTERVAL_MS;
  const typingAfter = deps.typingDelayMs ?? TYPING_DELAY_MS;
  const noticeAfter = deps.noticeDelayMs ?? WORKING_NOTICE_DELAY_MS;
  return {
    set(channelId, status) {
      indicator.set(channelId, status?.runId ?? null, () => [
        { name: 'typing indicator', afterMs: typingAfter, everyMs: typingEvery, show: () => deps.sendTyping(channelId).then(() => null) },
        {
          name: 'working notice',
          afterMs: noticeAfter,
          show: () => deps.postNotice(channelId, status!.stopActionId),
          hide: (id: string) => deps.deleteNotice(channelId, id),
        } satisfies WorkingSignal<string>,
      ]);
    },
    stopAll: () => indicator.stopAll(),
  };
}
