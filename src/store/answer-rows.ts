import type { ModelCharge, TokenUsage } from '../budget/budget-stop.js';
import type { OutboxPayload, OutboxPurpose } from '../db/schema.js';
import type { StoredToolCall } from '../records/stored-values.js';

/**
 * Everything a model answer writes (OutboxStore.addFencedAnswer), as rows: the run's step (and its tokens),
 * the response's charge, the transcript row and the outbox rows of its post. What `countStep`,
 * `UsageStore.record`, `CostStore.record`, `TranscriptStore.append` and `OutboxStore.add` would write in one
 * transaction, given to a store that writes it in one statement.
 */
export interface AnswerRows {
  readonly conversationId: string;
  /** The transcript row (role `assistant`). */
  readonly content: string | null;
  readonly toolCalls: readonly StoredToolCall[];
  readonly privateTo: string | null;
  /** The post's rows, one per platform message, in order (none: the answer has no text to post). */
  readonly purpose: OutboxPurpose;
  readonly pieces: readonly OutboxPayload[];
  /** The response's usage, charged to `user` on `day` (null: nothing charged). */
  readonly charge: {
    readonly day: string;
    readonly user: string;
    readonly usage: TokenUsage;
    readonly charge: ModelCharge;
  } | null;
}

/** What an answer's write returned: as the separate calls would have. */
export interface AnswerRowsWritten {
  /** The run's model steps, this one counted. */
  readonly steps: number;
  /** The run's tokens and dollars so far (the charge included; dollars null when nothing was charged). */
  readonly runTokens: number;
  readonly runUsd: number | null;
  /** The transcript row's id. */
  readonly messageId: number;
  /** The outbox rows' ids, in order. */
  readonly postIds: number[];
}
