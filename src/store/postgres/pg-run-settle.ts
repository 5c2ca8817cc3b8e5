import type { Clock } from '../../clock.js';
import type { RunEnd, RunEndAnswer } from '../../run-records/run-end.js';
import type { RunFence } from '../../run-records/run-fence.js';
import type { PgExecutor } from './pg-executor.js';
import { preparedText } from './pg-prepared.js';
import { onPool } from './pg-run-claims.js';

// The function of migration 0018_settle_run (drizzle-pg/): one named statement, prepared once per connection.
const settleRun = preparedText<{ answer: RunEndAnswer }>(
  'select errand_settle_run($1::text, $2::text, $3::integer, $4::text[], $5::text, $6::text, $7::text, $8::bigint, $9::text, $10::integer, $11::text, $12::text, $13::text) as answer',
);

/** errand_settle_run's thirteen arguments, in order (errand_settle_run_next takes them first too). */
export function settleArgs(fence: RunFence, end: RunEnd, now: number): unknown[] {
  const finish = end.task?.finish;
  return [
    fence.runId,
    fence.owner,
    fence.generation,
    [...end.from],
    end.to,
    end.summary ?? null,
    end.error ?? null,
    now,
    end.conversationId,
    end.task?.id ?? null,
    finish === undefined ? null : finish.kind === 'complete' ? 'completed' : 'failed',
    finish?.kind === 'complete' ? finish.summary : null,
    finish?.kind === 'fail' ? finish.reason : null,
  ];
}

/**
 * A run's end on PostgreSQL in one round trip (issue 40): the settling transaction's six statements (begin, the
 * fenced transition, the conversation's lock, the task's finish, the read of its blockers, commit) as one call of
 * `errand_settle_run`, a PL/pgSQL function whose statements each take a fresh snapshot under READ COMMITTED, so
 * what it reads after the conversation's lock is what that lock's last holder committed; a single statement with a
 * locking CTE would read an older snapshot. One call is one implicit transaction: all of it or nothing.
 */
export function createPgRunSettle(
  db: PgExecutor,
  clock: Clock,
): (fence: RunFence, end: RunEnd) => Promise<RunEndAnswer> {
  return async (fence, end) => {
    // Again when the server broke a deadlock by rolling the call back, as the settling transaction was (`atomically`).
    const [row] = await onPool(db, () => settleRun(db, settleArgs(fence, end, clock.now())));
    if (!row) throw new Error('errand_settle_run answered no row');
    return row.answer;
  };
}
