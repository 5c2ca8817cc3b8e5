import type { WorkingStatus } from '../../src/chat/chat-adapter.js';
import type { Logger } from '../../src/logger.js';

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

interface Active {
  runId: string;
  /** The first typing request, then the refresh every TYPING_INTERVAL_MS. */
  typingTimer: NodeJS.Timeout | null;
  interval: NodeJS.Timeout | null;
  noticeTimer: NodeJS.Timeout;
  notice: Promise<string | null> | null;
}

/**
 * What Discord users see while Errand works: the typing indicator (once the run took longer than
 * a quick answer), refreshed while the run is active, and — only when the run is still going after a couple of seconds — a small "Working…"
 * message with a Stop button, removed when the work ends. Nothing here is awaited by the caller,
 * so a slow typing request can never hold back the first reply.
 */
export function createWorkingIndicator(deps: WorkingIndicatorDeps): WorkingIndicator {
  const active = new Map<string, Active>();
  const typingEvery = deps.typingIntervalMs ?? TYPING_INTERVAL_MS;
  const typingAfter = deps.typingDelayMs ?? TYPING_DELAY_MS;
  const noticeAfter = deps.noticeDelayMs ?? WORKING_NOTICE_DELAY_MS;

  const typing = (channelId: string) => {
    deps.sendTyping(channelId).catch((err: unknown) => deps.logger.debug({ err, channelId }, 'typing indicator failed'));
  };

  const end = (channelId: string): Promise<void> => {
    const state = active.get(channelId);
    if (!state) return Promise.resolve();
    active.delete(channelId);
    if (state.typingTimer) clearTimeout(state.typingTimer);
    if (state.interval) clearInterval(state.interval);
    clearTimeout(state.noticeTimer);
    if (!state.notice) return Promise.resolve();
    return state.notice
      .then((id) => (id ? deps.deleteNotice(channelId, id) : undefined))
      .catch((err: unknown) => deps.logger.warn({ err, channelId }, 'removing the working notice failed'));
  };

  return {
    set(channelId, status) {
      const current = active.get(channelId);
      if (status && current?.runId === status.runId) return;
      void end(channelId);
      if (!status) return;
      const startTyping = () => {
        state.typingTimer = null;
        typing(channelId);
        state.interval = setInterval(() => typing(channelId), typingEvery);
      };
      const state: Active = {
        runId: status.runId,
        typingTimer: null,
        interval: null,
        noticeTimer: setTimeout(() => {
          state.notice = deps.postNotice(channelId, status.stopActionId).catch((err: unknown) => {
            deps.logger.warn({ err, channelId }, 'posting the working notice failed');
            return null;
          });
        }, noticeAfter),
        notice: null,
      };
      active.set(channelId, state);
      if (typingAfter > 0) state.typingTimer = setTimeout(startTyping, typingAfter);
      else startTyping();
    },
    async stopAll() {
      await Promise.all([...active.keys()].map((id) => end(id)));
    },
  };
}
