import { and, eq, notExists, sql } from 'drizzle-orm';
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.js';
import { outbox, outboxClaims } from '../../db/pg-schema.js';
import type { ClaimAttempt, OutboxClaim, OutboxStore, PendingPost } from '../outbox-store.js';
import { claimWithFirst } from './pg-outbox-first-row.js';
import type { PgExecutor } from './pg-executor.js';
import type { RunOwnership } from './pg-run-ownership.js';
import { prepared } from './pg-prepared.js';

const P = sql.placeholder;
const releaseRow = prepared((d) =>
  d
    .delete(outboxClaims)
    .where(and(eq(outboxClaims.conversationId, P('conversationId')), eq(outboxClaims.owner, P('owner')))),
);
/** The release of a drained conversation's claim: the claim row goes only while no row of it is pending. */
const releaseDrainedRow = prepared((d) =>
  d
    .delete(outboxClaims)
    .where(
      and(
        eq(outboxClaims.conversationId, P('conversationId')),
        eq(outboxClaims.owner, P('owner')),
        notExists(
          d
            .select({ one: sql`1` })
            .from(outbox)
            // The status as a literal, not a parameter: a plan made once for every call can then use the partial
            // index of pending rows, so PostgreSQL keeps one plan instead of planning the statement at each call.
            .where(and(eq(outbox.conversationId, P('conversationId')), sql`${outbox.status} = 'pending'`)),
        ),
      ),
    )
    .returning({ id: outboxClaims.conversationId }),
);

/**
 * Outbox claims on PostgreSQL, modelled on the run leases: one `outbox_claims` row per conversation being
 * posted to, naming its holder (this process's owner name) and `claim_until`. Claiming is one atomic upsert
 * that wins only a free, lapsed or already-own claim, so of several processes kicking one conversation
 * exactly one posts; the holder renews every third of the lease and deletes the row when it has drained
 * the conversation. Writes happen per worker turn (a burst of posts), never per post.
 */
export function createPgOutboxClaims(
  db: PgExecutor,
  clock: Clock,
  ownership: RunOwnership | null,
): Pick<OutboxStore, 'claim'> {
  // A store opened without an owner name (tools, tests) still needs one that no other process uses.
  const owner = ownership?.processId ?? `outbox-${randomUUID()}`;
  const leaseMs = ownership?.leaseMs ?? 30_000;
  // Whose running runs post their own rows (PendingPost.runningElsewhere): as `nextPending` compares.
  const me = ownership?.processId ?? null;
  const mine = (conversationId: string) =>
    and(eq(outboxClaims.conversationId, conversationId), eq(outboxClaims.owner, owner));

  const held = (conversationId: string, first?: PendingPost | null): OutboxClaim => ({
    ...(first !== undefined ? { first } : {}),
    renewEveryMs: Math.max(1, Math.floor(leaseMs / 3)),
    async renew() {
      const rows = await db
        .update(outboxClaims)
        .set({ claimUntil: clock.now() + leaseMs })
        .where(mine(conversationId))
        .returning({ id: outboxClaims.conversationId });
      return rows.length === 1;
    },
    async release() {
      await releaseRow(db, { conversationId, owner });
    },
    // One statement where a drained turn sent three (the empty read, the release, the look for rows recorded meanwhile).
    async releaseIfDrained() {
      return (await releaseDrainedRow(db, { conversationId, owner })).length === 1;
    },
  });

  return {
    async claim(conversationId): Promise<ClaimAttempt> {
      const now = clock.now();
      // The claim and the first pending row in one statement; an unreadable row is left to `nextPending`, which fails it.
      const got = await claimWithFirst(db, { conversationId, owner, until: now + leaseMs, now, me });
      if (got.won) return { kind: 'claimed', claim: held(conversationId, 'first' in got ? got.first : undefined) };
      const [current] = await db
        .select({ until: outboxClaims.claimUntil })
        .from(outboxClaims)
        .where(eq(outboxClaims.conversationId, conversationId));
      return { kind: 'busy', until: current?.until ?? now };
    },
  };
}
