import type { ClaimAttempt } from '../store/outbox-store.js';

/**
 * Hands the worker `OutboxPoster.claimAhead` started the claim the caller's write took for it (null: the write was
 * refused or failed, nothing claimed) and the rows that write recorded, as `kick` takes them.
 */
export type ClaimAhead = (attempt: ClaimAttempt | null, recorded?: readonly number[]) => void;
