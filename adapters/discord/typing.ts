import type { WorkingStatus } from '../../src/chat/chat-adapter.js';
import type { Logger } from '../../src/logger.js';

/** Discord shows "typing…" for 10 s per request; refreshing every 8 s keeps it steady. */
export const TYPING_INTERVAL_MS = 8000;
/** Runs that finish quickly never show the Stop notice: it appears only after this long. */
export const WORKING_NOTICE_DELAY_MS = 2000;

export interface WorkingIndicatorDeps {
  sendTyping(channelId: string): Promise<void>;
  /** Posts the "Working…" notice with a Stop button; resolves to its message id. */
  postNotice(channelId: string, stopActionId: string): Promise<string>;
  deleteNotice(channelId: string, messageId: string): Promise<void>;
  logger: Logger;
  typingIntervalMs?: number;
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
  interval: NodeJS.Timeout;
  noticeTimer: NodeJS.Timeout;
  notice: Promise<string | null> | null;
}

/**
 * What Discord users see while Errand works: the typing indicator, refreshed while the run is
 * active, and — only when the run is still going after a couple of seconds — a small "Working…"
 * message with a Stop button, removed when the work ends. Nothing here is awaited by the caller,
 * so a slow typing request can never hold back the first reply.
 */
export function createWorkingIndicator(deps: WorkingIndicatorDeps): WorkingIndicator {
  const active = new Map<string, Active>();
  const typingEvery = deps.typingIntervalMs ?? TYPING_INTERVAL_MS;
  const noticeAfter = deps.noticeDelayMs ?? WORKING_NOTICE_DELAY_MS;

  const typing = (channelId: string) => {
    deps.sendTyping(channelId).catch((err: unknown) => deps.logger.debug({ err, channelId }, 'typing indicator failed'));
  };

  const end = (channelId: string): Promise<void> => {
    const state = active.get(channelId);
    if (!state) return Promise.resolve();
    active.delete(channelId);
    clearInterval(state.interval);
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
      typing(channelId);
      const state: Active = {
        runId: status.runId,
        interval: setInterval(() => typing(channelId), typingEvery),
        noticeTimer: setTimeout(() => {
          state.notice = deps.postNotice(channelId, status.stopActionId).catch((err: unknown) => {
            deps.logger.warn({ err, channelId }, 'posting the working notice failed');
            return null;
          });
        }, noticeAfter),
        notice: null,
      };
      active.set(channelId, state);
    },
    async stopAll() {
      await Promise.all([...active.keys()].map((id) => end(id)));
    },
  };
}
