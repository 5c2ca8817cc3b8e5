import type { OutboxStore, PendingPost } from '../store/outbox-store.js';

/**
 * Counts a try of `row` before the platform is called (so a crash after it is known to need a look first), unless the
 * statement that read the row counted it already (`PendingPost.attemptCounted`: PostgreSQL's claim, issue 40).
 */
export function countAttempt(store: Pick<OutboxStore, 'countAttempt'>, row: PendingPost): Promise<void> {
  return row.attemptCounted ? Promise.resolve() : store.countAttempt(row.id);
}

/** `row` for another try within the same delivery (a streamed answer posted anew): that try is counted as any other. */
export function uncounted(row: PendingPost): PendingPost {
  if (!row.attemptCounted) return row;
  const { attemptCounted: _counted, ...rest } = row;
  return rest;
}
