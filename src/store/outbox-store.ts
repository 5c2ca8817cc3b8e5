import { z } from 'zod';
import type { RunFence } from '../run-records/run-fence.js';
import { OUTBOX_PURPOSES, type OutboxPayload, type OutboxPurpose, type OutboxStatus } from '../db/schema.js';
import type { AnswerRows, AnswerRowsWritten } from './answer-rows.js';

/** A pending outbox row as the poster reads it (payload validated). */
export interface PendingPost {
  readonly id: number;
  readonly conversationId: string;
  readonly runId: string | null;
  readonly purpose: OutboxPurpose;
  readonly payload: OutboxPayload;
  readonly attempts: number;
  readonly notBefore: number;
  /**
   * The row belongs to a run another process is executing now (`running` there): that process posts its
   * run's rows itself — an answer may be delivered by finishing a live preview only it holds, so a post
   * from here would show the answer twice. The rows after it wait too. Once the run is no longer running
   * there (ended, waiting, or taken over after its process died), any process may post them.
   */
  readonly runningElsewhere: boolean;
  /**
   * The statement that read the row counted this try already (`attempts` in the table is one more than here): the
   * delivery sends no `countAttempt` for it. Set only by a claim that read the row for a try made right away
   * (`OutboxClaim.first` on PostgreSQL, the row's first try): one statement fewer a post. A crash after that
   * statement and before the try leaves the row counted once more than tried: the next try looks the post up first.
   */
  readonly attemptCounted?: true;
}

/**
 * This process's right to post one conversation's pending rows. Processes sharing a database post a
 * conversation's rows only while they hold its claim, so two never post the same row (Slack has no
 * idempotency key to catch a second post).
 */
export interface OutboxClaim {
  /** How often the holder must renew while it posts; null when the claim cannot lapse (one process owns the database). */
  readonly renewEveryMs: number | null;
  /** Extends the claim; false when it lapsed and another process took it: post nothing more. */
  renew(): Promise<boolean>;
  /** Gives the claim up, so any process may post the conversation's rows at once. */
  release(): Promise<void>;
  /**
   * Gives the claim up only if the conversation has no pending row, in one statement: true when given up
   * (the turn is over, nothing to release after it), false when a row is pending (read it with
   * `nextPending`). A row committed after the check kicks its conversation, and that kick finds the claim
   * free (or, racing the release, busy: it looks again soon). Absent: read `nextPending`, then `release`.
   */
  releaseIfDrained?(): Promise<boolean>;
  /**
   * The conversation's first pending row, read by the claim's own statement (null: none was pending then), so
   * the turn's first `nextPending` is not sent. Absent: read it with `nextPending` (SQLite; an unreadable row).
   */
  readonly first?: PendingPost | null;
  /**
   * `OutboxStore.markStreamed`, and in the same statement `releaseIfDrained` counting the rows it marks as no longer
   * pending: true when the claim was given up. Absent: `markStreamed`, then `releaseIfDrained`.
   */
  markStreamedReleasing?(runId: string | null, posted: Parameters<OutboxStore['markStreamed']>[1]): Promise<boolean>;
}

/** Whether a claim was won: `busy` means another holder's claim is live until `until` (epoch ms). */
export type ClaimAttempt =
  { readonly kind: 'claimed'; readonly claim: OutboxClaim } | { readonly kind: 'busy'; readonly until: number };

/**
 * What an answer's write that claimed its conversation's rows returned (OutboxStore.addFencedAnswerClaiming): the
 * write, and the claim as `claim` would have answered right after it (won: with the conversation's first pending row,
 * its first try counted as the claim counts it; or busy until when another process's live claim lapses).
 */
export interface AnswerRowsClaimed extends AnswerRowsWritten {
  readonly claim: ClaimAttempt;
}

/** Persistence of the outbox table. Callers put writes that belong together in one `Store.atomically`. */
export interface OutboxStore {
  /**
   * Whether other processes post from this database too (PostgreSQL). False where one process holds the
   * database (SQLite): a row recorded while a conversation's rows are being posted kicks that conversation
   * itself, so the poster need not look again for rows recorded meanwhile.
   */
  readonly sharedWithOtherProcesses: boolean;
  /** Inserts one pending row per piece, in order; returns their ids. */
  add(
    conversationId: string,
    runId: string | null,
    purpose: OutboxPurpose,
    pieces: readonly OutboxPayload[],
  ): Promise<number[]>;
  /**
   * The conversation's next row to deliver, or null: a pending retraction first (the preview it takes back
   * must be gone before an answer posted anew shows beside it), else the oldest pending row.
   */
  nextPending(conversationId: string): Promise<PendingPost | null>;
  /** Conversations that have pending rows. */
  pendingConversations(): Promise<string[]>;
  /**
   * Claims the conversation's pending rows for this process (see OutboxClaim). A process claims again what
   * it already holds (a restarted process under its old name takes its claims straight back); a claim whose
   * holder stopped renewing is taken over once it lapses. Claim before reading the rows to post.
   */
  claim(conversationId: string): Promise<ClaimAttempt>;
  /** Counts a try before the platform is called, so a crash after it is known to need a look first. */
  countAttempt(id: number): Promise<void>;
  /** Marks a row posted with its platform id; false when it was no longer pending. */
  markPosted(id: number, platformMessageId: string): Promise<boolean>;
  /** Marks a row failed for good. */
  markFailed(id: number, error: string): Promise<void>;
  /** Marks every pending row of a conversation failed (its place is gone); returns their ids. */
  failConversation(conversationId: string, error: string): Promise<number[]>;
  /** Leaves a row pending until `notBefore` (retry backoff). */
  defer(id: number, notBefore: number, error: string): Promise<void>;
  /** A stopped run's answers and updates not posted yet: dropped (failed, `stopped`); returns their ids. */
  dropUnsent(runId: string): Promise<number[]>;
  /** Deletes posted and failed rows created before `before`; returns how many. */
  prune(before: number): Promise<number>;
  /** A row's status, platform id and conversation; null when unknown. */
  state(id: number): Promise<{ status: OutboxStatus; platformMessageId: string | null; conversationId: string } | null>;
  /**
   * Records a message of a run's live answer preview (status `preview`), so that if the process dies
   * before the answer is finished the message can be found and taken back. Written before the post
   * leaves with `platformMessageId` null (the row's id is the post's idempotency key), then filled in
   * by `setPreviewMessage` when the platform answered.
   */
  addPreview(conversationId: string, runId: string, platformMessageId: string | null): Promise<number>;
  /**
   * `addPreview` (with no message id yet) of a run's preview only while `fence` holds, in one statement that
   * locks the run's row as `RunStore.holds` does: the row's id, or null when another process owns the run now
   * (nothing written). Absent: `holds` and `addPreview` in one transaction.
   */
  addFencedPreview?(conversationId: string, fence: RunFence): Promise<number | null>;
  /**
   * A model answer's whole write (the step count, the charge, the transcript row, the post's rows: see AnswerRows)
   * only while `fence` holds, in one statement whose update of the run's row checks the fence and locks the row
   * (as `RunStore.holds`): what it wrote, or null when another process owns the run now (nothing written).
   * Absent: those calls in one transaction that begins with `holds`.
   */
  addFencedAnswer?(answer: AnswerRows, fence: RunFence): Promise<AnswerRowsWritten | null>;
  /**
   * `addFencedAnswer` that also claims the conversation's rows for this process, in the same statement, as `claim`
   * would right after it: what the poster's next turn there starts with (AnswerRowsClaimed.claim), so it sends no
   * claim of its own. Nothing is claimed when the fence does not hold (null). Only for a poster about to run a turn
   * there (OutboxPoster.claimAhead): a won claim must be worked and given up. Absent: `addFencedAnswer`, then `claim`.
   */
  addFencedAnswerClaiming?(answer: AnswerRows, fence: RunFence): Promise<AnswerRowsClaimed | null>;
  /**
   * The platform answered the post of preview row `id`: its message id, unless one is recorded already. Resolves
   * once written; on PostgreSQL the write may wait up to 20 ms for the process's next statement to go with.
   */
  setPreviewMessage(id: number, platformMessageId: string): Promise<void>;
  /**
   * What is needed to look for the message of a preview row whose post never got its answer: when the
   * row was written (`since`); when the first later row that is not the row's run going on was written
   * (`until`: another run's, or a note such as the recovery's; null when none); and the platform ids of
   * the conversation's rows written or posted from `marginMs` before `since` on (none of them is the
   * message sought). Null when the row is unknown.
   */
  previewProbe(id: number, marginMs: number): Promise<{ since: number; until: number | null; known: string[] } | null>;
  /** A pending `retract` row whose preview message never reached the platform: settled (posted, no id). */
  markNothingToRetract(id: number): Promise<void>;
  /**
   * An answer finished through its preview, in one transaction: its rows are marked posted with the
   * preview's message ids, and the run's preview rows are settled (posted: they now are the answer).
   */
  markStreamed(
    runId: string | null,
    posted: readonly { readonly id: number; readonly platformMessageId: string }[],
  ): Promise<void>;
  /**
   * The unfinished previews of an interrupted run become pending `retract` rows (their payload `mark` is
   * the text to show where a platform refuses to delete), delivered by the poster in order; returns the
   * conversations that got some.
   */
  retractPreviews(runId: string, mark: string): Promise<string[]>;
}

const buttonSchema = z.object({
  actionId: z.string(),
  label: z.string(),
  style: z.enum(['primary', 'danger']).optional(),
});
/** Stored JSON is read back through this schema: a row written by another version must not crash the poster. */
export const outboxPayloadSchema = z.object({
  text: z.string(),
  mentionUserId: z.string().optional(),
  buttons: z.array(buttonSchema).optional(),
  editOf: z.string().optional(),
  visibleTo: z.string().optional(),
  secret: z.boolean().optional(),
});
/** A stored purpose, read back. */
export const outboxPurposeSchema = z.enum(OUTBOX_PURPOSES);
