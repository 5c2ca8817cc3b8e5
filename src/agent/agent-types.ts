import type { AnswerStream, PreviewMessageSlot } from '../chat/chat-adapter.js';

/**
 * The agent's own vocabulary, independent of how it is stored: the database schema imports these for
 * its JSON columns, never the other way round.
 */

import type { Store } from '../store/store.js';

export type MessageRole = 'system' | 'user' | 'assistant' | 'tool';

/** A tool call as the model produced it, stored with the assistant message. */
export interface StoredToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** A tool call waiting for a person's approval, and the calls of the same step that come after it. */
export interface PendingApproval {
  /** The model-facing tool name (`<server>__<tool>`). */
  tool: string;
  call: StoredToolCall;
  remaining: StoredToolCall[];
  /** A task_complete summary given earlier in the same step, applied once the step finishes. */
  completeSummary: string | null;
}

/** The question a `waiting_user` run is parked on. */
export interface PendingQuestion {
  /**
   * Names this question among the run's questions (see question-identity.ts); its buttons carry it,
   * so a click answers only the question its message belongs to. Absent on questions parked before
   * questions had one: their buttons are refused and the answer is typed.
   */
  id?: string;
  /** Set when the run waits for a tool approval rather than an ask_user answer. */
  approval?: PendingApproval;
  question: string;
  options: string[];
  toolCallId: string;
  askedAt: number;
  /** Platform id of the posted question (buttons live on it). */
  messageId: string | null;
  /** The user to mention and whose answer is expected. */
  userId: string | null;
  /** An answer that arrived while no run slot was free (or during shutdown): applied when the run resumes. */
  answer?: { text: string | null; userId: string | null; source: 'click' | 'typed' | 'timeout' };
}

/**
 * An image a person attached, as the model receives it: `url` is a `data:` URL (base64), so the
 * transcript holds the bytes themselves and a restart or an expired platform link loses nothing.
 */
export interface ImagePart {
  /** The file name, for logs and the text beside it. */
  name: string;
  url: string;
}

/** A stored transcript row as the context builder reads it. */
export interface TranscriptRow {
  readonly id: number;
  readonly runId: string | null;
  readonly role: MessageRole;
  readonly content: string | null;
  readonly toolCalls: StoredToolCall[] | null;
  readonly toolCallId: string | null;
  /** Images sent with a user message (stored JSON; validated where it is read). */
  readonly images?: unknown;
}

/** Why the bot posts a message: its answer text, a send_update, a question or approval it waits on, or a note about the run. */
export type PostPurpose = 'answer' | 'update' | 'question' | 'approval' | 'note';

/** A message a run wants posted in its conversation. */
export interface PostIntent {
  readonly purpose: PostPurpose;
  readonly text: string;
  readonly mentionUserId?: string;
  readonly buttons?: readonly { readonly actionId: string; readonly label: string; readonly style?: 'primary' | 'danger' }[];
}

/** The outbox rows one recorded post became (one per platform message), oldest first. */
export type PostTicket = readonly number[];

/**
 * How a run posts: the post is recorded in the same database transaction as the transcript step
 * that produced it (`atomically`), so a crash can neither lose it nor post it twice, and a poster
 * delivers it in order once that transaction has committed.
 */
export interface RunPosts {
  /** Runs `write` in one database transaction (`Store.atomically`: the body awaits only `tx` calls). */
  atomically<T>(write: (tx: Store) => Promise<T>): Promise<T>;
  /**
   * Records a post for delivery; inside `atomically`, pass its `tx` so the post belongs to that write.
   * With `stream` (the live preview of this very answer) it is delivered by finishing that stream
   * instead of posting anew, so the answer appears once; the rows are then marked posted with its
   * message ids.
   */
  record(conversationId: string, runId: string | null, intent: PostIntent, tx?: Store, stream?: AnswerStream): Promise<PostTicket>;
  /**
   * Waits until every row of the ticket is settled. Resolves with the last platform message id, or
   * null when a row failed (logged), `signal` aborted the wait, or the poster stopped; rejects with
   * TargetGoneError when the conversation's place is gone for good.
   */
  delivered(ticket: PostTicket, signal?: AbortSignal): Promise<string | null>;
  /** Drops a stopped run's answers and updates that are not posted yet; returns how many. */
  dropUnsent(runId: string): Promise<number>;
  /**
   * Records durably that a live preview of this run's answer is about to put a message on the platform
   * (once per preview message, not per append), before the post leaves, so a preview cut by a crash can
   * be taken back even when the platform's answer was lost with the process. Never rejects, but for a
   * run's fenced writes (runtime/fenced-run-writes.ts), which reject a stale owner's preview so it is not
   * posted. With `tx` (a transaction of `atomically`), the record belongs to that write.
   */
  recordPreview(conversationId: string, runId: string, tx?: Store): Promise<PreviewMessageSlot>;
  /**
   * For a run that died with its process (restart recovery, cluster takeover): its previews whose answer
   * was never finished are queued for removal from the platform, ahead of what the run posts next, each
   * done once by the outbox. Pass the `tx` the run is recovered in. Returns how many messages.
   */
  retractPreviews(runId: string, tx?: Store): Promise<number>;
}
