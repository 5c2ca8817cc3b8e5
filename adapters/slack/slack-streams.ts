import { z } from 'zod';
import type { AnswerStream, AnswerStreamHooks } from '../../src/chat/chat-adapter.js';
import type { ConversationRef } from '../../src/chat/conversation-ref.js';
import { createEditedStream } from '../../src/chat/edited-stream.js';
import type { Clock } from '../../src/clock.js';
import type { Logger } from '../../src/logger.js';
import type { AgentSessions } from './agent-sessions.js';
import type { StoppedStreams } from './agent-session-events.js';
import type { BotThreads } from './bot-threads.js';
import { createNativeStream } from './native-stream.js';
import { renderPieces } from './message-bodies.js';
import type { OutboundQueue } from './outbound-queue.js';
import type { SlackCall } from './slack-call.js';
import { locate, type SlackOutbound } from './slack-outbound.js';

const streamCallSchema = z.object({ ts: z.string().optional() });

export interface SlackStreamsDeps {
  readonly api: SlackCall;
  readonly queue: OutboundQueue;
  readonly outbound: Pick<SlackOutbound, 'postMessage' | 'editMessage' | 'remove'>;
  readonly botThreads: BotThreads;
  /** Least time between two calls of one stream. */
  readonly intervalMs: number;
  /** How streamed answers show the run's steps as task cards (`slack.taskDisplay`). */
  readonly taskDisplay: 'timeline' | 'plan';
  readonly clock: Clock;
  readonly logger: Logger;
  /** The thread's agent session: a stream's end leaves it as the core last said (`session_status`). */
  readonly sessions?: AgentSessions;
  /** Streams Slack stopped itself: their previews make no more calls. */
  readonly stoppedStreams?: StoppedStreams;
}

/**
 * Opens an answer that grows while the model writes. Slack streams natively only in threads (and
 * outside DMs only to a named recipient); anywhere else, or where Slack refuses, one post is edited.
 * Native streams show the run's steps as task cards, except in a workspace that refused them once.
 */
export function createSlackStreams(
  deps: SlackStreamsDeps,
): (conversation: ConversationRef, recipientUserId: string | null, hooks?: AnswerStreamHooks) => AnswerStream {
  const { api, queue, outbound, botThreads, intervalMs, clock, logger } = deps;
  // Workspaces that refused task cards: their streams carry text alone from then on, not tried on every run.
  const chunkless = new Set<string>();
  return (conversation, recipientUserId, hooks) => {
    const loc = locate(conversation);
    const edited = () =>
      createEditedStream({
        post: async (text, key) =>
          (await outbound.postMessage(conversation, { text, ...(key ? { idempotencyKey: key } : {}) })).id,
        edit: (id, text) => outbound.editMessage(conversation, id, { text }),
        remove: (id) => outbound.remove(loc.channelId, id),
        ...(hooks ? { beforeMessage: hooks.beforeMessage } : {}),
        render: (text) => renderPieces(text),
        intervalMs,
        clock,
        logger,
      });
    const dm = loc.channelId.startsWith('D');
    if (!loc.threadTs || (!dm && !recipientUserId)) return edited();
    if (loc.threadTs) botThreads.mark(loc.channelId, loc.threadTs);
    return createNativeStream({
      channelId: loc.channelId,
      threadTs: loc.threadTs,
      recipient: recipientUserId ? { teamId: loc.teamId, userId: recipientUserId } : null,
      call: (method, args) => {
        const send = (withArgs: Record<string, unknown>) =>
          queue.enqueue(loc.channelId, (s) => s(() => api(method, withArgs, streamCallSchema)));
        if (method !== 'chat.stopStream' || !deps.sessions) return send(args);
        // chat.stopStream sets the session's status too (Slack's default: active): the one the core last said, in order with its calls.
        return deps.sessions.streamEnd(
          { teamId: loc.teamId, channelId: loc.channelId, threadTs: loc.threadTs! },
          (status) => send(status ? { ...args, session_status: status } : args),
        );
      },
      stoppedOutside: (ts) => deps.stoppedStreams?.has(loc.channelId, ts) === true,
      fallback: edited,
      steps: {
        mode: deps.taskDisplay,
        refused: () => chunkless.has(loc.teamId),
        refuse: () => void chunkless.add(loc.teamId),
      },
      remove: (id) => outbound.remove(loc.channelId, id),
      ...(hooks ? { beforeMessage: hooks.beforeMessage } : {}),
      intervalMs,
      clock,
      logger,
    });
  };
}
