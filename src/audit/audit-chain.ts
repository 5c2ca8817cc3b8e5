import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { auditEntrySchema, type AuditEntry } from './audit-entry.js';

/** The `prev_hash` of the first entry. */
export const GENESIS_HASH = '0'.repeat(64);

/**
 * The entry as the chain hashes and stores it: canonical JSON (RFC 8785, the `canonicalize` package), so the same
 * entry always gives the same text, whatever order its fields were written in.
 */
export function entryText(entry: AuditEntry): string {
  const text = canonicalize({
    at: entry.at,
    kind: entry.kind,
    actor: entry.actor,
    runId: entry.runId,
    detail: entry.detail,
  });
  if (text === undefined) throw new Error('an audit entry must be JSON');
  return text;
}

/** sha256(previous hash + entry text), hex: each entry's link to the one before it. */
export function chainHash(prevHash: string, text: string): string {
  return createHash('sha256').update(prevHash).update(text).digest('hex');
}

/** One stored row, as the check reads it. */
export interface StoredAuditRow {
  readonly id: number;
  readonly at: number;
  readonly kind: string;
  readonly actor: string | null;
  readonly runId: string | null;
  readonly entry: string;
  readonly prevHash: string;
  readonly hash: string;
}

/** What the check found: intact, or the first row where the chain breaks and why. */
export type ChainCheck =
  | { readonly intact: true; readonly entries: number; readonly lastHash: string }
  | { readonly intact: false; readonly entries: number; readonly brokenAt: number; readonly reason: string };

/**
 * Walks the chain in id order, a page at a time (`page(afterId)` returns the next rows, empty at the end), and
 * reports the first row whose hash, link to the row before, or columns do not match its entry.
 */
export async function checkChain(page: (afterId: number) => Promise<readonly StoredAuditRow[]>): Promise<ChainCheck> {
  let prev = GENESIS_HASH;
  let afterId = 0;
  let entries = 0;
  for (;;) {
    const rows = await page(afterId);
    if (rows.length === 0) return { intact: true, entries, lastHash: prev };
    for (const row of rows) {
      const problem = rowProblem(row, prev);
      if (problem) return { intact: false, entries, brokenAt: row.id, reason: problem };
      prev = row.hash;
      afterId = row.id;
      entries++;
    }
  }
}

function rowProblem(row: StoredAuditRow, prev: string): string | null {
  if (row.prevHash !== prev)
    return 'it does not link to the entry before it (an entry was removed or inserted before it)';
  if (chainHash(prev, row.entry) !== row.hash) return 'its hash does not match its content (the entry was edited)';
  let parsed: unknown;
  try {
    parsed = JSON.parse(row.entry);
  } catch {
    return 'its content is not JSON';
  }
  const entry = auditEntrySchema.safeParse(parsed);
  if (!entry.success) return 'its content is not an audit entry';
  const e = entry.data;
  if (e.at !== row.at || e.kind !== row.kind || e.actor !== row.actor || e.runId !== row.runId)
    return 'its columns differ from its hashed content (a column was edited)';
  return null;
}
