import type { AnswerStream, PreviewMessageSlot } from '../chat/chat-adapter.js';
import type { MessageRole, PostPurpose, StoredToolCall } from '../records/stored-values.js';
import type { Store } from '../store/store.js';
import type { RunFence } from '../run-records/run-fence.js';
import type { PendingCharge } from '../budget/budget-stop.js';

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
  /** The person the row is private to (null or absent: public in the conversation). */
  readonly privateTo?: string | null;
}

/** A message a run wants posted in its conversation. */
export interface PostIntent {
  readonly purpose: PostPurpose;
  readonly text: string;
  readonly mentionUserId?: string;
  readonly buttons?: readonly {
    readonly actionId: string;
    readonly label: string;
    readonly style?: 'primary' | 'danger';
  }[];
  /**
   * Built on material private to `owner` in a conversation others read: shown to them alone first, with **Share in
   * thread** / **Keep private**, and posted in the conversation only when they share it (`messageId`: the transcript
   * row of the answer, made public then; null for an update).
   */
  readonly heldFor?: { readonly owner: string; readonly messageId: number | null };
  /**
   * A question or approval of a run holding this person's private material, in a conversation others read: shown to
   * them alone (with its buttons, which answer it from there), never in the conversation itself.
   */
  readonly shownTo?: string;
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
  record(
    conversationId: string,
    runId: string | null,
    intent: PostIntent,
    tx?: Store,
    stream?: AnswerStream,
  ): Promise<PostTicket>;
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
   * run's fenced writes (runs/runtime/fenced-run-writes.ts), which reject a stale owner's preview so it is not
   * posted. With `tx` (a transaction of `atomically`), the record belongs to that write.
   */
  recordPreview(conversationId: string, runId: string, tx?: Store): Promise<PreviewMessageSlot>;
  /**
   * `recordPreview` of a run's preview, only while `fence` holds, checked in the same statement (PostgreSQL):
   * null when another process owns the run now (nothing recorded). Absent where the store cannot.
   */
  recordFencedPreview?(conversationId: string, fence: RunFence): Promise<PreviewMessageSlot | null>;
  /**
   * Optional (a run's fenced writes where the store can, PostgreSQL): a model answer's whole write, the step count,
   * its charge, its transcript row and its post, in one statement conditional on the run's fence; rejects with
   * RunFencedError when another process owns the run now (nothing written). Absent: `atomically` with
   * `countStep`, `RunBudget.record`, `TranscriptStore.append` and `record`, as before.
   */
  writeAnswer?(answer: AnswerWrite): Promise<WrittenAnswer>;
  /** `writeAnswer` only while `fence` holds, checked in the same statement: null when it does not (nothing written). */
  writeFencedAnswer?(answer: AnswerWrite, fence: RunFence): Promise<WrittenAnswer | null>;
  /**
   * For a run that died with its process (restart recovery, cluster takeover): its previews whose answer
   * was never finished are queued for removal from the platform, ahead of what the run posts next, each
   * done once by the outbox. Pass the `tx` the run is recovered in. Returns how many messages.
   */
  retractPreviews(runId: string, tx?: Store): Promise<number>;
}

/** A model answer as a run records it (RunPosts.writeAnswer): its transcript row, its post and its charge. */
export interface AnswerWrite {
  readonly conversationId: string;
  readonly runId: string;
  /** The transcript row (role `assistant`). */
  readonly content: string | null;
  readonly toolCalls: readonly StoredToolCall[];
  readonly privateTo: string | null;
  /** The post of its text (never one held for its owner: `heldFor` takes `record`); absent: nothing to post. */
  readonly post?: PostIntent;
  /** The live preview of this answer, finished by its post (`record`'s `stream`). */
  readonly stream?: AnswerStream;
  /** The response's charge (RunBudget.charge); absent: nothing charged. */
  readonly charge?: PendingCharge;
}

/** What an answer's write recorded. */
export interface WrittenAnswer {
  /** The run's model steps, this one counted. */
  readonly steps: number;
  /** The transcript row's id. */
  readonly messageId: number;
  /** The post's outbox rows (empty: nothing posted). */
  readonly ticket: PostTicket;
}
