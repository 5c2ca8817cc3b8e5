import type { PgExecutor } from './pg-executor.js';
import { isTransaction } from './pg-within-transaction.js';

/** The conversations whose row each open transaction holds locked; gone with the transaction's executor. */
const held = new WeakMap<PgExecutor, Set<string>>();

/**
 * Records that `ex`, an open transaction, holds the conversation's row locked until it ends: its upsert
 * (`ensure`) or a `for no key update` read took the lock. A row lock lasts until the transaction ends, so a
 * later write there that needs it asks for nothing (issue 40: one statement fewer per mention). Nothing is
 * recorded for the pool, where each statement is its own transaction.
 */
export function heldConversation(ex: PgExecutor, conversationId: string): void {
  if (!isTransaction(ex)) return;
  let set = held.get(ex);
  if (!set) held.set(ex, (set = new Set()));
  set.add(conversationId);
}

/** Whether `ex`, an open transaction, already holds the conversation's row lock (see heldConversation). */
export function holdsConversation(ex: PgExecutor, conversationId: string): boolean {
  return held.get(ex)?.has(conversationId) === true;
}
