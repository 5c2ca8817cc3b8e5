import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { TaskRow } from '../../db/schema.js';
import { runs, tasks } from '../../db/pg-schema.js';
import { ConversationBusyError } from '../../run-records/conversation-busy-error.js';
import type { RunClaims, TaskWithRun } from '../../run-records/run-claims.js';
import { heldConversation, holdsConversation } from './pg-conversation-locks.js';
import type { PgExecutor } from './pg-executor.js';
import { rowReader } from './pg-json-rows.js';
import { preparedText } from './pg-prepared.js';
import type { RunOwnership } from './pg-run-ownership.js';
import { isTransaction } from './pg-within-transaction.js';

const claimTask = preparedText<{ claimed: ClaimJson | null }>(
  'select errand_claim_task($1::text, $2::bigint, $3::text, $4::text, $5::bigint, $6::integer, $7::boolean, $8::boolean) as claimed',
);

/** What errand_claim_task (drizzle-pg/0017_accept_mention.sql) returns: the claimed task and its run, as JSON rows. */
export interface ClaimJson {
  task: Record<string, unknown>;
  run: Record<string, unknown>;
}

const readTask = rowReader<TaskRow>(tasks);
const readRun = rowReader<typeof runs.$inferSelect>(runs);

/** A claim as errand_claim_task returned it, as the store's rows with the fence its run row carries. */
export function claimFromJson(json: ClaimJson): TaskWithRun {
  const run = readRun(json.run);
  return {
    task: readTask(json.task),
    run,
    fence: { runId: run.id, owner: run.owner, generation: run.leaseGeneration },
  };
}

/** The run columns a claim writes for this process (RunStore.create's owner, lease and first generation). */
export function runClaimValues(clock: Clock, ownership: RunOwnership | null) {
  const now = clock.now();
  return {
    now,
    runId: randomUUID(),
    owner: ownership?.processId ?? null,
    leaseUntil: ownership ? now + ownership.leaseMs : null,
    generation: ownership ? 1 : 0,
  };
}

/** The server's "conversation busy" (errand_claim_task's `EB001`) as the store's ConversationBusyError. */
export function busyAs(conversationId: string): (err: unknown) => never {
  return (err) => {
    if ((err as { code?: unknown } | null)?.code === 'EB001') throw new ConversationBusyError(conversationId);
    throw err;
  };
}

/** `40P01` deadlock_detected, `40001` serialization_failure: the server's "try again" (as pg-store.ts's `atomically`). */
function retryable(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '40P01' || code === '40001';
}

/**
 * Runs one statement that is a transaction of its own on the pool, again when the server broke a deadlock or a
 * serialization conflict by rolling it back (as `atomically` does); inside a transaction, once (the caller's
 * `atomically` runs the whole body again).
 */
export async function onPool<T>(db: PgExecutor, call: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await call();
    } catch (err) {
      if (isTransaction(db) || tries >= 3 || !retryable(err)) throw err;
    }
  }
}

/**
 * A task's claim on PostgreSQL as one call of errand_claim_task: on the pool a transaction of its own (one round
 * trip instead of `begin`, five statements and `commit`); inside a transaction the conversation's row lock is
 * taken only if that transaction does not hold it yet. The function writes the run and goal-message columns
 * `RunStore.create` and `TranscriptStore.append` write: a column added to them needs the function replaced too (a
 * new custom migration).
 */
export function createPgRunClaims(db: PgExecutor, clock: Clock, ownership: RunOwnership | null): RunClaims {
  return {
    async claimNext(conversationId, knownIdle) {
      const inTransaction = isTransaction(db);
      const lock = !(inTransaction && holdsConversation(db, conversationId));
      const row = await onPool(db, async () => {
        const v = runClaimValues(clock, ownership);
        const values = [conversationId, v.now, v.runId, v.owner, v.leaseUntil, v.generation, lock, !knownIdle];
        const [claimed] = await claimTask(db, values).catch(busyAs(conversationId));
        return claimed;
      });
      if (inTransaction) heldConversation(db, conversationId);
      return row?.claimed ? claimFromJson(row.claimed) : null;
    },
  };
}
