import type { ConversationRef } from '../chat/conversation-ref.js';
import type { RunRow, TaskRow } from '../db/schema.js';
import type { TaskWithRun } from '../run-records/run-claims.js';

/** A mention to store as a task (the dispatcher's common case: no stop, no budget refusal, no files). */
export interface MentionToAccept {
  /** The de-duplication key; null when it was recorded already (before its thread was opened). */
  dedupeKey: string | null;
  ref: ConversationRef;
  timezone: string | null;
  title: string;
  description: string;
  requestedBy: string;
  requesterRoles: readonly string[] | null;
  sourceMessageId: string;
  /** Whether to claim the new task at once when no run is active there (a slot is held for it). */
  claim: boolean;
}

/** What accepting a mention wrote and found. */
export type AcceptedMention =
  /** Seen before: nothing was written. */
  | { kind: 'duplicate' }
  /** A run there waits for an answer: nothing was written (the caller decides with its separate calls). */
  | { kind: 'undecided' }
  /** The task was stored; `claimed` when it was claimed at once, `active` the run already active there. */
  | { kind: 'task'; conversationId: string; task: TaskRow; active: RunRow | null; claimed: TaskWithRun | null };

/**
 * Accepting a mention as one store call, a transaction of its own (issue 40: on PostgreSQL one function call
 * instead of `begin`, seven statements and `commit`): de-duplication, the conversation's upsert, the active run
 * read under its row lock, the task and its claim. Exactly what the dispatcher's separate calls write; a store
 * without it keeps those (SQLite). Called outside any transaction.
 */
export interface MentionAccepts {
  accept(mention: MentionToAccept): Promise<AcceptedMention>;
}
