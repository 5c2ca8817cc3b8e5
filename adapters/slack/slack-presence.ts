import type { WorkingStatus } from '../../src/chat/chat-adapter.js';
import type { ConversationRef } from '../../src/chat/conversation-ref.js';
import type { Logger } from '../../src/logger.js';
import { createAssistantThreads, type AssistantThreads, type SuggestedPrompt } from './assistant-threads.js';
import { toSlackButton, type SlackMessageBody } from './message-bodies.js';
import type { OutboundQueue } from './outbound-queue.js';
import type { SlackCall } from './slack-call.js';
import { platformError } from './slack-api.js';
import { locate, okSchema, type SlackOutbound } from './slack-outbound.js';
import type { SlackTuning } from './slack-adapter-options.js';
import { createWorkingIndicator, WORKING_REACTION } from './working-status.js';

const WORKING_TEXT = '⏳ Working… press *Stop* to stop me.';

export interface SlackPresenceDeps {
  readonly api: SlackCall;
  readonly queue: OutboundQueue;
  readonly outbound: Pick<SlackOutbound, 'post'>;
  readonly tuning: SlackTuning;
  readonly suggestedPrompts: readonly SuggestedPrompt[];
  readonly logger: Logger;
}

/** What Slack shows while a run works, wherever the conversation is. */
export interface SlackPresence {
  /** The assistant view's threads, whose events Bolt hands over. */
  readonly assistant: AssistantThreads;
  setWorking(conversation: ConversationRef, status: WorkingStatus | null): void;
  /** Clears every indicator and status line and waits for the calls in flight. */
  stopAll(): Promise<void>;
}

/**
 * The working status on Slack. Threads of the app's assistant view (DM threads) show a status
 * line; everywhere else a reaction on the triggering message, then a "Working…" notice with Stop.
 */
export function createSlackPresence(deps: SlackPresenceDeps): SlackPresence {
  const { api, queue, tuning, logger } = deps;
  const ignoring =
    (...codes: string[]) =>
    (err: unknown) => {
      if (!codes.includes(platformError(err) ?? '')) throw err;
    };
  const working = createWorkingIndicator({
    logger,
    reactionDelayMs: tuning.workingReactionDelayMs ?? 400,
    noticeDelayMs: tuning.workingNoticeDelayMs ?? 2000,
    addReaction: (channel, ts) =>
      api('reactions.add', { channel, timestamp: ts, name: WORKING_REACTION }, okSchema).then(
        () => undefined,
        ignoring('already_reacted'),
      ),
    removeReaction: (channel, ts) =>
      api('reactions.remove', { channel, timestamp: ts, name: WORKING_REACTION }, okSchema).then(
        () => undefined,
        ignoring('no_reaction', 'message_not_found'),
      ),
    postNotice: (conversation, stopActionId) => {
      const loc = locate(conversation);
      const body: SlackMessageBody = {
        text: WORKING_TEXT,
        blocks: [
          { type: 'section', text: { type: 'mrkdwn', text: WORKING_TEXT } },
          { type: 'actions', elements: [toSlackButton({ actionId: stopActionId, label: 'Stop', style: 'danger' })] },
        ],
      };
      return queue.enqueue(loc.channelId, (send) => deps.outbound.post(send, loc, body)).then((m) => m.ts);
    },
    deleteNotice: (channel, ts) =>
      api('chat.delete', { channel, ts }, okSchema).then(() => undefined, ignoring('message_not_found')),
  });
  const assistant = createAssistantThreads({
    call: (method, args) => api(method, args, okSchema),
    suggestedPrompts: deps.suggestedPrompts,
    logger,
  });
  return {
    assistant,
    setWorking(conversation, status) {
      if (assistant.isAssistantThread(conversation)) assistant.setWorking(conversation, status);
      else working.set(conversation, status);
    },
    async stopAll() {
      await working.stopAll();
      await assistant.stopAll();
    },
  };
}
