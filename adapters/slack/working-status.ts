import type { WorkingStatus } from '../../src/chat/chat-adapter.js';
import { conversationKey, type ConversationRef } from '../../src/chat/conversation-ref.js';
import type { Logger } from '../../src/logger.js';

/** The reaction shown on the message that started the work. */
export const WORKING_REACTION = 'hourglass_flowing_sand';

export interface WorkingIndicatorDeps {
  addReaction(channelId: string, ts: string): Promise<void>;
  removeReaction(channelId: string, ts: string): Promise<void>;
  /** Posts the "Working…" notice with a Stop button; resolves to its ts. */
  postNotice(conversation: ConversationRef, stopActionId: string): Promise<string>;
  deleteNotice(channelId: string, ts: string): Promise<void>;
  /** Runs that finish sooner get no reaction: an instant answer needs no hourglass flashing on and off. */
  reactionDelayMs: number;
  /** Runs that finish sooner get no notice, so quick answers stay uncluttered. */
  noticeDelayMs: number;
  logger: Logger;
}

export interface WorkingIndicator {
  /** Shows or clears the indicator; returns at once, all Slack calls happen in the background. */
  set(conversation: ConversationRef, status: WorkingStatus | null): void;
  /** Clears every indicator and waits for the calls in flight. */
  stopAll(): Promise<void>;
}

interface Shown {
  runId: string;
  channelId: string;
  timer: NodeJS.Timeout | null;
  reactionTimer: NodeJS.Timeout | null;
  reaction: Promise<boolean> | null;
  sourceTs: string | null;
  notice: Promise<string | null> | null;
}

/**
 * The working status on Slack: a reaction on the triggering message once the run has taken
 * `reactionDelayMs` and, when it is still going after `noticeDelayMs`, a small notice with a Stop
 * button; both are removed when the run ends. Nothing here is awaited by the caller, so it never delays a reply, and every call's
 * failure is caught and logged (an un-awaited Web API rejection would crash the process).
 */
export function createWorkingIndicator(deps: WorkingIndicatorDeps): WorkingIndicator {
  const shown = new Map<string, Shown>();
  const inFlight = new Set<Promise<unknown>>();
  const track = <T>(p: Promise<T>, what: string, fallback: T): Promise<T> => {
    const safe = p.catch((err: unknown) => {
      deps.logger.warn({ err }, `${what} failed`);
      return fallback;
    });
    inFlight.add(safe);
    void safe.finally(() => inFlight.delete(safe));
    return safe;
  };

  const clear = (s: Shown) => {
    if (s.timer) clearTimeout(s.timer);
    if (s.reactionTimer) clearTimeout(s.reactionTimer);
    s.timer = s.reactionTimer = null;
    const { reaction, sourceTs, notice } = s;
    if (reaction && sourceTs) {
      track(
        reaction.then((added) => (added ? deps.removeReaction(s.channelId, sourceTs) : undefined)),
        'removing the working reaction',
        undefined,
      );
    }
    if (notice) {
      track(
        notice.then((ts) => (ts ? deps.deleteNotice(s.channelId, ts) : undefined)),
        'removing the working notice',
        undefined,
      );
    }
  };

  return {
    set(conversation, status) {
      const key = conversationKey(conversation);
      const current = shown.get(key);
      if (current && status && current.runId === status.runId) return;
      if (current) {
        shown.delete(key);
        clear(current);
      }
      if (!status) return;
      const s: Shown = { runId: status.runId, channelId: conversation.channel, timer: null, reactionTimer: null, reaction: null, sourceTs: status.sourceMessageId ?? null, notice: null };
      if (s.sourceTs) {
        const ts = s.sourceTs;
        s.reactionTimer = setTimeout(() => {
          s.reactionTimer = null;
          if (shown.get(key) !== s) return;
          s.reaction = track(
            deps.addReaction(s.channelId, ts).then(() => true),
            'adding the working reaction',
            false,
          );
        }, deps.reactionDelayMs);
        s.reactionTimer.unref();
      }
      s.timer = setTimeout(() => {
        s.timer = null;
        if (shown.get(key) !== s) return;
        s.notice = track(deps.postNotice(conversation, status.stopActionId), 'posting the working notice', null);
      }, deps.noticeDelayMs);
      s.timer.unref();
      shown.set(key, s);
    },
    async stopAll() {
      for (const s of shown.values()) clear(s);
      shown.clear();
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
  };
}
