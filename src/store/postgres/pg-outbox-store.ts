import { and, asc, eq, inArray, lt, ne, sql } from 'drizzle-orm';
import type { Clock } from '../../clock.js';
import { outbox } from '../../db/pg-schema.js';
import { outboxPayloadSchema, outboxPurposeSchema, type OutboxStore, type PendingPost } from '../outbox-store.js';
import type { PgExecutor } from './pg-executor.js';
import { createPgOutboxClaims, pgClaimHolder } from './pg-outbox-claims.js';
import { createPgOutboxPreviews } from './pg-outbox-previews.js';
import { createPgAnswerWrite } from './pg-answer-write.js';
import { createPgAnswerClaim } from './pg-answer-claim.js';
import type { RunOwnership } from './pg-run-ownership.js';
import { prepared } from './pg-prepared.js';

/**
 * A pending row, with the status written as a literal (not a bound parameter): only then can a plan PostgreSQL keeps
 * for a prepared statement use the partial index of pending rows (`outbox_pending_idx`); with a bound status it
 * planned a custom plan at every call (bench/OVERHEAD.md, issue 40's eighth round).
 */
const pending = sql`${outbox.status} = 'pending'`;
/** `attempts + 1`, evaluated by the database so concurrent counts add up. */
const sqlIncrement = () => sql`${outbox.attempts} + 1`;

/**
 * Whether the row's run is running in another process (see PendingPost.runningElsewhere); one primary-key
 * lookup. Written out by hand: drizzle drops the table names of a correlated subquery's columns.
 */
const runningElsewhere = (me: unknown) =>
  sql<boolean>`exists (select 1 from runs r where r.id = "outbox"."run_id" and r.status = 'running' and r.owner is distinct from ${me})`;

const P = sql.placeholder;
const nextPendingRow = prepared((d) =>
  d
    .select({ raw: outbox, runningElsewhere: runningElsewhere(P('me')) })
    .from(outbox)
    .where(and(eq(outbox.conversationId, P('conversationId')), pending))
    .orderBy(sql`${outbox.purpose} = 'retract' desc`, asc(outbox.id))
    .limit(1),
);
const addOne = prepared((d) =>
  d
    .insert(outbox)
    .values({
      conversationId: P('conversationId'),
      runId: P('runId'),
      purpose: P('purpose'),
      payload: sql`${P('payload')}::jsonb`,
      status: 'pending',
      createdAt: P('now'),
    })
    .returning({ id: outbox.id }),
);
const countOutboxAttempt = prepared((d) =>
  d
    .update(outbox)
    .set({ attempts: sqlIncrement() })
    .where(eq(outbox.id, P('id'))),
);
const markRowPosted = prepared((d) =>
  d
    .update(outbox)
    .set({
      status: 'posted',
      platformMessageId: sql`${P('platformMessageId')}`,
      postedAt: sql`${P('now')}`,
      error: null,
    })
    .where(and(eq(outbox.id, P('id')), pending))
    .returning({ id: outbox.id }),
);
const pendingConversationIds = prepared((d) =>
  d.selectDistinct({ id: outbox.conversationId }).from(outbox).where(pending),
);
const rowState = prepared((d) =>
  d
    .select({
      status: outbox.status,
      platformMessageId: outbox.platformMessageId,
      conversationId: outbox.conversationId,
    })
    .from(outbox)
    .where(eq(outbox.id, P('id'))),
);

/** The outbox on PostgreSQL: jsonb payloads read back through the zod schema, conditional status updates. */
export function createPgOutboxStore(db: PgExecutor, clock: Clock, ownership: RunOwnership | null): OutboxStore {
  const me = ownership?.processId ?? null;
  // One owner name for the claims this process takes, by their own statement or with an answer's write.
  const holder = pgClaimHolder(db, clock, ownership);
  const markFailed = async (id: number, error: string) => {
    await db
      .update(outbox)
      .set({ status: 'failed', error })
      .where(and(eq(outbox.id, id), pending));
  };
  const nextPending = async (conversationId: string): Promise<PendingPost | null> => {
    const [found] = await nextPendingRow(db, { me, conversationId });
    if (!found) return null;
    const { raw } = found;
    const payload = outboxPayloadSchema.safeParse(raw.payload);
    const purpose = outboxPurposeSchema.safeParse(raw.purpose);
    if (!payload.success || !purpose.success) {
      await markFailed(raw.id, 'unreadable payload');
      return nextPending(conversationId);
    }
    return {
      id: raw.id,
      conversationId: raw.conversationId,
      runId: raw.runId,
      purpose: purpose.data,
      payload: payload.data,
      attempts: raw.attempts,
      notBefore: raw.notBefore,
      runningElsewhere: found.runningElsewhere === true,
    };
  };
  return {
    sharedWithOtherProcesses: true,
    async add(conversationId, runId, purpose, pieces) {
      if (pieces.length === 0) return [];
      const now = clock.now();
      if (pieces.length === 1)
        return (await addOne(db, { conversationId, runId, purpose, payload: JSON.stringify(pieces[0]), now })).map(
          (r) => r.id,
        );
      const rows = await db
        .insert(outbox)
        .values(
          pieces.map((payload) => ({
            conversationId,
            runId,
            purpose,
            payload,
            status: 'pending' as const,
            createdAt: now,
          })),
        )
        .returning({ id: outbox.id });
      return rows.map((r) => r.id).sort((a, b) => a - b);
    },
    nextPending,
    async pendingConversations() {
      const rows = await pendingConversationIds(db);
      return rows.map((r) => r.id);
    },
    async countAttempt(id) {
      await countOutboxAttempt(db, { id });
    },
    async markPosted(id, platformMessageId) {
      const rows = await markRowPosted(db, { id, platformMessageId, now: clock.now() });
      return rows.length === 1;
    },
    markFailed,
    async failConversation(conversationId, error) {
      const rows = await db
        .update(outbox)
        .set({ status: 'failed', error })
        .where(and(eq(outbox.conversationId, conversationId), pending))
        .returning({ id: outbox.id });
      return rows.map((r) => r.id).sort((a, b) => a - b);
    },
    async dropUnsent(runId) {
      const rows = await db
        .update(outbox)
        .set({ status: 'failed', error: 'stopped before it was posted' })
        .where(and(eq(outbox.runId, runId), pending, inArray(outbox.purpose, ['answer', 'update'])))
        .returning({ id: outbox.id });
      return rows.map((r) => r.id).sort((a, b) => a - b);
    },
    async defer(id, notBefore, error) {
      await db
        .update(outbox)
        .set({ notBefore, error })
        .where(and(eq(outbox.id, id), pending));
    },
    async prune(before) {
      const rows = await db
        .delete(outbox)
        .where(and(ne(outbox.status, 'pending'), lt(outbox.createdAt, before)))
        .returning({ id: outbox.id });
      return rows.length;
    },
    async state(id) {
      const [r] = await rowState(db, { id });
      return r ?? null;
    },
    ...createPgOutboxClaims(db, clock, holder),
    ...createPgOutboxPreviews(db, clock),
    ...createPgAnswerWrite(db, clock),
    ...createPgAnswerClaim(db, clock, holder),
  };
}
