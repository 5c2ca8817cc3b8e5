import type { Clock } from '../../clock.js';
import type { RunFence } from '../../run-records/run-fence.js';
import type { AnswerRows } from '../answer-rows.js';
import type { AnswerRowsClaimed, ClaimAttempt, OutboxStore, PendingPost } from '../outbox-store.js';
import {
  ANSWER_WRITE_CTES,
  ANSWER_WRITE_RESULT,
  answerWriteValues,
  answerWritten,
  type AnswerWriteRow,
} from './pg-answer-write.js';
import type { PgClaimHolder } from './pg-outbox-claims.js';
import { claimUpsertSql, runningElsewhereSql } from './pg-outbox-claim-sql.js';
import type { PgExecutor } from './pg-executor.js';
import { preparedText } from './pg-prepared.js';

/** The claiming write's row: the answer's write, and the claim (see below). */
interface AnswerClaimRow extends AnswerWriteRow {
  readonly won: boolean;
  /** An older row was pending: the turn reads the first row itself. */
  readonly older: boolean;
  /** The answer's run runs in another process (a store without this process's name): its rows wait for it. */
  readonly elsewhere: boolean;
  /** The answer's first row was inserted with its first try counted. */
  readonly counted: boolean;
  readonly busy_until: string | number | null;
}

/**
 * The answer's write (pg-answer-write.ts, `$1`–`$18`) and the claim the poster sent right after it
 * (pg-outbox-first-row.ts) in one statement (issue 40, eleventh round): `$19` the claim's owner, `$20` its
 * `claim_until`, `$21` the process `runningElsewhere` compares runs' owners with.
 *
 * - `won`: the upsert of `claimWithFirst` (a free, lapsed or already-own claim), from `run`: when the fence does not
 *   hold, nothing is claimed, as nothing is written.
 * - The first pending row, handed to the turn only when it is the answer's own first row: when no row of the
 *   conversation is pending in the statement's snapshot (`older`; a CTE does not see the rows a sibling CTE
 *   inserts). An older pending row is not handed over: read from the snapshot, it may be one the claim's last holder
 *   posted and gave up while this statement waited for that holder's lock on the claim (the snapshot is from before),
 *   so the turn reads it itself (`nextPending`, after this commits). That costs a statement only where rows wait
 *   before the answer; the usual answer is the conversation's only pending row. The row is the one just written, so
 *   it comes back as its id (`post_ids`), not as its columns.
 * - Its first try, counted once as `claimWithFirst` counts it (its run not running elsewhere, not `files`; a new row is
 *   due and never tried): inserted with `attempts` 1 (an update of a row inserted by the same statement would not see
 *   it), handed on with `attempts` 0, as before the count, and `attemptCounted`.
 * - `busy_until`: the holder's `claim_until` as the snapshot read it (a lost claim's next look, `claim`'s second read).
 */
const writeAnswerClaiming = preparedText<AnswerClaimRow>(
  `${ANSWER_WRITE_CTES}, ` +
    `won as (${claimUpsertSql('select $13::text, $19::text, $20::bigint from run', '$5::bigint')}), ` +
    `ahead as (select w.won, w.older, w.elsewhere, w.won and not w.older and not w.elsewhere and $17::text <> 'files' as count ` +
    `from (select exists (select 1 from won) as won, ` +
    `exists (select 1 from outbox o where o.conversation_id = $13::text and o.status = 'pending') as older, ` +
    `${runningElsewhereSql('$1::text', '$21::text')} as elsewhere) w), ` +
    `posts as (insert into outbox (conversation_id, run_id, purpose, payload, status, created_at, attempts) ` +
    `select $13::text, run.id, $17::text, p.payload, 'pending', $5::bigint, case when p.n = 1 and ahead.count then 1 else 0 end ` +
    `from run, ahead, unnest($18::jsonb[]) with ordinality as p(payload, n) order by p.n returning id) ` +
    `select ${ANSWER_WRITE_RESULT}, ahead.won, ahead.older, ahead.elsewhere, ahead.count as counted, ` +
    `case when ahead.won then null else (select claim_until from outbox_claims where conversation_id = $13::text) end as busy_until ` +
    `from run, ahead`,
);

/** The answer's write that claims its conversation's rows (OutboxStore.addFencedAnswerClaiming) on PostgreSQL. */
export function createPgAnswerClaim(
  db: PgExecutor,
  clock: Clock,
  holder: PgClaimHolder,
): Pick<Required<OutboxStore>, 'addFencedAnswerClaiming'> {
  return {
    async addFencedAnswerClaiming(answer: AnswerRows, fence: RunFence): Promise<AnswerRowsClaimed | null> {
      const now = clock.now();
      const values = [...answerWriteValues(answer, fence, now), holder.owner, now + holder.leaseMs, holder.me];
      const [row] = await writeAnswerClaiming(db, values);
      if (!row) return null;
      const written = answerWritten(row);
      return { ...written, claim: claimOf(row, answer, fence, written.postIds[0], now, holder) };
    },
  };
}

/** The claim as `claim` answers it: won with the answer's first row as the first pending one (or none read), or busy. */
function claimOf(
  row: AnswerClaimRow,
  answer: AnswerRows,
  fence: RunFence,
  id: number | undefined,
  now: number,
  holder: PgClaimHolder,
): ClaimAttempt {
  const { conversationId } = answer;
  if (!row.won) return { kind: 'busy', until: row.busy_until === null ? now : Number(row.busy_until) };
  // An older row pending: the turn reads the first row itself (see above).
  if (row.older) return { kind: 'claimed', claim: holder.held(conversationId) };
  const payload = answer.pieces[0];
  const first: PendingPost | null =
    id === undefined || payload === undefined
      ? null
      : {
          id,
          conversationId,
          runId: fence.runId,
          purpose: answer.purpose,
          payload,
          attempts: 0,
          notBefore: 0,
          runningElsewhere: row.elsewhere,
          ...(row.counted ? { attemptCounted: true as const } : {}),
        };
  return { kind: 'claimed', claim: holder.held(conversationId, first) };
}
