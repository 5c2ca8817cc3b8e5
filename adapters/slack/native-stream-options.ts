import type { AnswerStream, PreviewMessageSlot } from '../../src/chat/chat-adapter.js';
import type { Clock } from '../../src/clock.js';
import type { Logger } from '../../src/logger.js';

/** Whether the run's steps show as task cards in this workspace, and how. */
export interface StreamSteps {
  /** `task_display_mode` (`slack.taskDisplay`). */
  mode: 'timeline' | 'plan';
  /** True once this workspace refused chunks: cards are not tried again. */
  refused(): boolean;
  /** Remembers that this workspace refuses chunks (the status line and text go on as without cards). */
  refuse(): void;
}

/** What a native stream is made with: where it goes, how it calls Slack, and what it falls back to. */
export interface NativeStreamOptions {
  channelId: string;
  threadTs: string;
  /** Required by Slack outside DMs: the person the answer is for, and their team. */
  recipient: { teamId: string; userId: string } | null;
  /** One Web API call through the channel's queue; resolves with the answer's `ts` when it has one. */
  call(
    method: 'chat.startStream' | 'chat.appendStream' | 'chat.stopStream',
    args: Record<string, unknown>,
  ): Promise<{ ts?: string | undefined }>;
  /** Deletes the streamed message (`chat.delete`), when it is discarded. */
  remove(ts: string): Promise<void>;
  /**
   * Records the streamed message before `chat.startStream` leaves (see `AnswerStreamHooks`). The call
   * takes no metadata: the key only names the record, which learns the ts once Slack gave it.
   */
  beforeMessage?(): Promise<PreviewMessageSlot>;
  /** The preview to use when Slack refuses to stream here: one post edited with `chat.update`. */
  fallback(): AnswerStream;
  /** Task cards for the run's steps; absent: the stream shows text only (no `showSteps`). */
  steps?: StreamSteps;
  /** Least time between two calls of this stream. */
  intervalMs: number;
  /** Whether Slack stopped the stream with this ts itself (a person pressed Slack's Stop on the session): no call reaches it then. */
  stoppedOutside?(ts: string): boolean;
  clock: Clock;
  logger: Logger;
}
