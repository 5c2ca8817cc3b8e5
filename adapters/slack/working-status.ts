import type { WorkingStatus } from '../../src/chat/chat-adapter.js';
import { conversationKey, type ConversationRef } from '../../src/chat/conversation-ref.js';
import type { Logger } from '../../src/logger.js';
import {
  createWorkingIndicator as createSharedIndicator,
  type WorkingSignal,
} from '../../src/chat/working-indicator.js';

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

/**
 * The working status on Slack: a reaction on the triggering message once the run has taken
 * `reactionDelayMs` and, when it is still going after `noticeDelayMs`, a small notice with a Stop
 * button; both are removed when the run ends. Built on the shared skeleton in
 * src/chat/working-indicator.ts: never awaited by the caller, every failure caught and logged.
 */
export function createWorkingIndicator(deps: WorkingIndicatorDeps): WorkingIndicator {
  const indicator = createSharedIndicator(deps.logger);
  return {
    set(conversation, status) {
      const channelId = conversation.channel;
      const sourceTs = status?.sourceMessageId ?? null;
      indicator.set(conversationKey(conversation), status?.runId ?? null, () => [
        ...(sourceTs
          ? [
              {
                name: 'working reaction',
                afterMs: deps.reactionDelayMs,
                show: () => deps.addReaction(channelId, sourceTs).then(() => sourceTs),
                hide: (ts: string) => deps.removeReaction(channelId, ts),
              } satisfies WorkingSignal<string>,
            ]
          : []),
        {
          name: 'working notice',
          afterMs: deps.noticeDelayMs,
          show: () => deps.postNotice(conversation, status!.stopActionId),
          hide: (ts: string) => deps.deleteNotice(channelId, ts),
        } satisfies WorkingSignal<string>,
      ]);
    },
    stopAll: () => indicator.stopAll(),
  };
}
