import { and, eq, notExists, sql } from 'drizzle-orm';
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.js';
import { outbox, outboxClaims } from '../../db/pg-schema.js';
import type { ClaimAttempt, OutboxClaim, OutboxStore, PendingPost } from '../outbox-store.js';
import { claimWithFirst } from './pg-outbox-first-row.js';
import type { PgExecutor } from './pg-executor.js';
import type { RunOwnership } from './pg-run-ownership.js';
import { MARK_STREAMED_SQL } from './pg-outbox-previews.js';
import { prepared, preparedText } from './pg-prepared.js';

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
 * A streamed answer marked posted (MARK_STREAMED_SQL, `$1`–`$4`) and the drained claim given up (`$5` the
 * conversation, `$6` the owner) in one statement. Both parts read the snapshot from before the statement, so the
 * rows being marked (`$1`) still read as pending there and are left out of the look for pending rows.
 */
const markStreamedReleasingRows = preparedText<{ released: boolean }>(
  `with posted as (${MARK_STREAMED_SQL} returning o.id), ` +
    `released as (delete from outbox_claims c where c.conversation_id = $5::text and c.owner = $6::text ` +
    `and not exists (select 1 from outbox p where p.conversation_id = $5::text and p.status = 'pending' and p.id <> all($1::integer[])) ` +
    `returning c.conversation_id) ` +
    `select exists (select 1 from released) as released, (select count(*) from posted) as posted`,
);

/**
 * This process's side of the outbox claims: the owner name it claims under, the lease, the process id that
 * `runningElsewhere` compares runs' owners with, and a won claim as the poster holds it. Shared by the claim's own
 * statement and the answer's write that claims (pg-answer-claim.ts), so both claim under one name.
 */
export interface PgClaimHolder {
  readonly owner: string;
  readonly leaseMs: number;
  /** Whose running runs post their own rows (PendingPost.runningElsewhere): as `nextPending` compares. */
  readonly me: string | null;
  /** The claim won on `conversationId`, with the first pending row its statement read (undefined: not read). */
  held(conversationId: string, first?: PendingPost | null): OutboxClaim;
}

/** The claim holder of a store opened with `ownership` (none: tools and tests, under a name no other process uses). */
export function pgClaimHolder(db: PgExecutor, clock: Clock, ownership: RunOwnership | null): PgClaimHolder {
  // A store opened without an owner name (tools, tests) still needs one that no other process uses.
  const owner = ownership?.processId ?? `outbox-${randomUUID()}`;
  const leaseMs = ownership?.leaseMs ?? 30_000;
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
    // The streamed answer's mark and the release a drained turn sends after it, in one statement.
    async markStreamedReleasing(runId, posted) {
      const ids = posted.map((r) => r.id);
      const messageIds = posted.map((r) => r.platformMessageId);
      const [row] = await markStreamedReleasingRows(db, [ids, messageIds, clock.now(), runId, conversationId, owner]);
      return row?.released === true;
    },
  });
  return { owner, leaseMs, me: ownership?.processId ?? null, held };
}

/**
 * Outbox claims on PostgreSQL, modelled on the run leases: one `outbox_claims` row per conversation being
 * posted to, naming its holder (this process's owner name) and `claim_until`. Claiming is one atomic upsert
 * that wins only a free, lapsed or already-own claim, so of several processes kicking one conversation
 * exactly one posts; the holder renews every third of the lease and deletes the row when it has drained
 * the conversation. Writes happen per worker turn (a burst of posts), never per post.
 */
export function createPgOutboxClaims(db: PgExecutor, clock: Clock, holder: PgClaimHolder): Pick<OutboxStore, 'claim'> {
  const { owner, leaseMs, me, held } = holder;
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
