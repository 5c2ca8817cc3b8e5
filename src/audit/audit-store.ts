import type { AuditEntry, ChainedAuditEntry } from './audit-entry.js';
import type { StoredAuditRow } from './audit-chain.js';

export type { StoredAuditRow } from './audit-chain.js';

/** Which entries a page of the log shows. */
export interface AuditFilter {
  readonly kind?: string;
  readonly runId?: string;
}

/**
 * The append-only audit log. `append` chains the entry to the last one and stores it, one append at a time across
 * every process sharing the database (SQLite: one connection; PostgreSQL: an advisory lock held by the inserting
 * transaction), so the chain stays a single line. Nothing updates or deletes a row.
 */
export interface AuditStore {
  /** Chains and stores the entry; returns it with its id and hashes. */
  append(entry: AuditEntry): Promise<ChainedAuditEntry>;
  /** The newest entries first, older than `beforeId` when given, at most `limit`. */
  page(filter: AuditFilter, beforeId: number | null, limit: number): Promise<StoredAuditRow[]>;
  /** Rows in id order after `afterId`, at most `limit`: what the chain check walks. */
  after(afterId: number, limit: number): Promise<StoredAuditRow[]>;
}
