import { randomUUID } from 'node:crypto';
import { and, eq, isNotNull, isNull, lt, lte, or, sql } from 'drizzle-orm';
import type { Clock } from '../../clock.js';
import { runs } from '../../db/pg-schema.js';
import { ConversationBusyError } from '../../run-records/conversation-busy-error.js';
import type { RunStore } from '../../run-records/run-store.js';
import type { PgExecutor } from '../../store/postgres/pg-executor.js';
import type { RunOwnership } from '../../store/postgres/pg-run-ownership.js';
import { isTransaction, withinTransaction } from '../../store/postgres/pg-within-transaction.js';
import { prepared } from '../../store/postgres/pg-prepared.js';
import { createPgRunFencing, fencedCountRunStep, fencedTransitionRun, FINAL_SET } from './pg-run-fencing.js';
import { createPgRunSettle } from '../../store/postgres/pg-run-settle.js';
import { createPgSettleNext } from '../../store/postgres/pg-settle-next.js';

const P = sql.placeholder;
const ACTIVE = sql`${runs.status} in ('running', 'waiting_user')`;
const createRun = prepared((d) =>
  d
    .insert(runs)
    .values({
      id: P('id'),
      conversationId: P('conversationId'),
      taskId: P('taskId'),
      status: 'running',
      startedAt: P('now'),
      updatedAt: P('now'),
      principal: P('principal'),
      // jsonb: the JSON text or null as it is (a placeholder would write null as the JSON `null`).
      principalRoles: sql`${P('principalRoles')}::jsonb`,
      owner: P('owner'),
      leaseUntil: P('leaseUntil'),
      leaseGeneration: P('leaseGeneration'),
    })
    .onConflictDoNothing()
    .returning(),
);
const getRun = prepared((d) =>
  d
    .select()
    .from(runs)
    .where(eq(runs.id, P('id'))),
);
const activeRun = prepared((d) =>
  d
    .select()
    .from(runs)
    .where(and(eq(runs.conversationId, P('conversationId')), ACTIVE)),
);
const transitionRun = prepared((d) =>
  d
    .update(runs)
    .set(FINAL_SET)
    .where(and(eq(runs.id, P('id')), sql`${runs.status} = any(${P('from')}::text[])`))
    .returning({ id: runs.id }),
);
const countRunStep = prepared((d) =>
  d
    .update(runs)
    .set({ steps: sql`${runs.steps} + 1`, updatedAt: sql`${P('now')}` })
    .where(eq(runs.id, P('id')))
    .returning({ steps: runs.steps }),
);
const expiredQuestionRuns = prepared((d) =>
  d
    .select()
    .from(runs)
    .where(and(sql`${runs.status} = 'waiting_user'`, lte(runs.askExpiresAt, P('now'))))
    .limit(P('limit')),
);
const fenceOf = prepared((d) =>
  d
    .select({ owner: runs.owner, generation: runs.leaseGeneration })
    .from(runs)
    .where(eq(runs.id, P('id'))),
);

/**
 * Runs on PostgreSQL. Status changes are conditional updates, so racing processes cannot overwrite a
 * final state; a run started or resumed here records `owner` and `lease_until` when `ownership` is given,
 * and a new lease generation (run-records/run-fence.ts): the fence its execution carries.
 */
export function createPgRunStore(db: PgExecutor, clock: Clock, ownership: RunOwnership | null): RunStore {
  const claim = () =>
    ownership
      ? {
          owner: ownership.processId,
          leaseUntil: clock.now() + ownership.leaseMs,
          leaseGeneration: sql`${runs.leaseGeneration} + 1`,
        }
      : {};
  const get = async (id: string) => (await getRun(db, { id }))[0] ?? null;
  // The fence a claim wrote in this transaction, so reading it back costs no round trip: nobody else sees
  // or changes the row before the commit. Kept only on a transaction's store, which ends with it.
  const claimedHere = new Map<string, { owner: string | null; generation: number }>();
  const remember = (row: { id: string; owner: string | null; leaseGeneration: number } | undefined) => {
    if (row && isTransaction(db)) claimedHere.set(row.id, { owner: row.owner, generation: row.leaseGeneration });
  };
  const fencing = createPgRunFencing(db);
  return {
    async create(conversationId, taskId, principal) {
      const now = clock.now();
      // The partial unique index of active runs is the arbiter: a second active run inserts nothing.
      const [row] = await createRun(db, {
        id: randomUUID(),
        conversationId,
        taskId,
        now,
        principal: principal?.userId ?? null,
        principalRoles: principal?.roles && principal.roles.length > 0 ? JSON.stringify(principal.roles) : null,
        owner: ownership?.processId ?? null,
        leaseUntil: ownership ? now + ownership.leaseMs : null,
        leaseGeneration: ownership ? 1 : 0,
      });
      if (!row) throw new ConversationBusyError(conversationId);
      remember(row);
      return row;
    },
    get,
    async active(conversationId) {
      const [row] = await activeRun(db, { conversationId });
      return row ?? null;
    },
    async transition(id, from, to, fields = {}) {
      if (from.length === 0) return false;
      const now = clock.now();
      const values = { id, to, from: [...from], summary: fields.summary ?? null, error: fields.error ?? null, now };
      const rows = await fencing.foldInto(
        id,
        () => transitionRun(db, values),
        (fence) => fencedTransitionRun(db, { ...values, ...fence }),
      );
      return rows.length === 1;
    },
    async park(id, question, expiresAt, from = 'running') {
      const rows = await db
        .update(runs)
        .set({ status: 'waiting_user', question, askExpiresAt: expiresAt, updatedAt: clock.now() })
        .where(and(eq(runs.id, id), eq(runs.status, from)))
        .returning({ id: runs.id });
      return rows.length === 1;
    },
    async setQuestionMessage(id, messageId) {
      await db
        .update(runs)
        .set({ question: sql`jsonb_set(${runs.question}, '{messageId}', to_jsonb(${messageId}::text))` })
        .where(and(eq(runs.id, id), eq(runs.status, 'waiting_user'), isNotNull(runs.question)));
    },
    async recordAnswer(id, answer, questionId) {
      // A click's answer: only to that very question, and only the first (one statement: no other writer between check and write).
      const thatQuestion =
        questionId === undefined
          ? undefined
          : sql`${runs.question}->>'id' = ${questionId} and ${runs.question}->'answer' is null`;
      const rows = await db
        .update(runs)
        .set({
          question: sql`jsonb_set(${runs.question}, '{answer}', ${JSON.stringify(answer)}::jsonb)`,
          askExpiresAt: 0,
          updatedAt: clock.now(),
        })
        .where(and(eq(runs.id, id), eq(runs.status, 'waiting_user'), isNotNull(runs.question), thatQuestion))
        .returning({ id: runs.id });
      return rows.length === 1;
    },
    async unpark(id) {
      // The row lock makes two processes resuming the same run take turns: the second finds it running.
      return withinTransaction(db, async (t) => {
        const [r] = await t.select().from(runs).where(eq(runs.id, id)).for('update');
        if (!r || r.status !== 'waiting_user' || !r.question) return null;
        const [claimed] = await t
          .update(runs)
          .set({ status: 'running', question: null, askExpiresAt: null, updatedAt: clock.now(), ...claim() })
          .where(eq(runs.id, id))
          .returning({ id: runs.id, owner: runs.owner, leaseGeneration: runs.leaseGeneration });
        remember(claimed);
        return r.question;
      });
    },
    async countStep(id) {
      const now = clock.now();
      const [row] = await fencing.foldInto(
        id,
        () => countRunStep(db, { id, now }),
        (fence) => fencedCountRunStep(db, { id, now, ...fence }),
      );
      return row?.steps ?? 0;
    },
    async interruptAllRunning() {
      const now = clock.now();
      const orphaned = ownership
        ? or(eq(runs.owner, ownership.processId), isNull(runs.owner), isNull(runs.leaseUntil), lt(runs.leaseUntil, now))
        : undefined;
      return db
        .update(runs)
        .set({ status: 'interrupted', updatedAt: now, endedAt: now })
        .where(and(eq(runs.status, 'running'), orphaned))
        .returning();
    },
    async waitingFor(platform, principal, limit) {
      return db
        .select()
        .from(runs)
        .where(
          and(
            sql`${runs.status} = 'waiting_user'`,
            eq(runs.principal, principal),
            sql`${runs.conversationId} collate "C" > ${`${platform}:`}`,
            sql`${runs.conversationId} collate "C" < ${`${platform};`}`,
          ),
        )
        .orderBy(runs.startedAt)
        .limit(limit);
    },
    async expiredQuestions(limit) {
      return expiredQuestionRuns(db, { now: clock.now(), limit });
    },
    async fence(id) {
      const known = claimedHere.get(id);
      if (known) return { runId: id, ...known };
      const [row] = await fenceOf(db, { id });
      if (!row) throw new Error(`no run ${id} to read the fence of`);
      return { runId: id, owner: row.owner, generation: row.generation };
    },
    holds: fencing.holds,
    expectFence: fencing.expectFence,
    settle: createPgRunSettle(db, clock),
    settleNext: createPgSettleNext(db, clock, ownership),
  };
}
