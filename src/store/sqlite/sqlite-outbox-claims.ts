import type { ClaimAttempt, OutboxClaim, OutboxStore } from '../outbox-store.js';
import type { Synchronous } from './synchronous.js';

/**
 * Outbox claims on SQLite: one process owns the database file, so its claims are kept in memory — no
 * write at all, and a claim never lapses (it ends with its holder's release, or with the process).
 */
export function createSqliteOutboxClaims(): Synchronous<Pick<OutboxStore, 'claim'>> {
  const held = new Map<string, OutboxClaim>();
  return {
    claim(conversationId): ClaimAttempt {
      if (held.has(conversationId)) return { kind: 'busy', until: 0 };
      const claim: OutboxClaim = {
        renewEveryMs: null,
        renew: async () => held.get(conversationId) === claim,
        release: async () => {
          if (held.get(conversationId) === claim) held.delete(conversationId);
        },
      };
      held.set(conversationId, claim);
      return { kind: 'claimed', claim };
    },
  };
}
