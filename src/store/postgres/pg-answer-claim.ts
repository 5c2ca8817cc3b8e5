import type { Clock } from '../../clock.js';
import type { RunFence } from '../../run-records/run-fence.js';
import type { AnswerRows } from '../answer-rows.js';
import type { AnswerRowsClaimed, ClaimAttempt, OutboxStore } from '../outbox-store.js';
import {
  ANSWER_WRITE_CTES,
  ANSWER_WRITE_RESULT,
  answerWriteValues,
  answerWritten,
  type AnswerWriteRow,
} from './pg-answer-write.js';
import type { PgClaimHolder } from './pg-outbox-claims.js';
import { firstRowOf, type FirstRowRaw } from './pg-outbox-first-row.js';
import type { PgExecutor } from './pg-executor.js';
import { preparedText } from './pg-prepared.js';

/** The claiming write's row: the answer's write, whether the claim was won, the holder's `claim_until`, the first row. */
interface AnswerClaimRow extends AnswerWriteRow, Omit<FirstRowRaw, 'id'> {
  readonly won: boolean;
  readonly busy_until: string | number | null;
  readonly first_id: string | number | null;
}

/**
 * The answer's write (pg-answer-write.ts, `$1`–`$18`) and the claim the poster sent right after it
 * (pg-outbox-first-row.ts) in one statement (issue 40, eleventh round): `$19` the claim's owner, `$20` its
 * `claim_until`, `$21` the process `runningElsewhere` compares runs' owners with.
 *
 * - `won`: the upsert of `claimWithFirst` (a free, lapsed or already-own claim), from `run`: when the fence does not
 *   hold, nothing is claimed, as nothing is written.
 * - The first pending row. A CTE does not see the rows a sibling CTE inserts, so it is the first of two: `older`, the
 *   conversation's first pending row in the statement's snapshot (`nextPending`'s order and `runningElsewhere`), and
 *   the first of the rows `posts` inserts. Ordered as `nextPending` orders (retractions first, then by id); between
 *   the two, an older row comes first unless only the answer's row is a retraction: every row the snapshot sees was
 *   given its id before this statement began, so its id is the smaller.
 * - The first try, counted once as `claimWithFirst` counts it (due, its run not running elsewhere, not `files`, never
 *   tried): an older row by `counted`'s update (which re-checks the row is still pending and untried); the answer's
 *   own row is inserted with `attempts` 1 where it is the first (`ahead.count`), as an update of a row inserted by the
 *   same statement would not see it. Both come back with `attempts` as before the count (0) and `counted` set.
 * - `busy_until`: the holder's `claim_until` as the snapshot read it (a lost claim's next look, `claim`'s second read).
 */
const writeAnswerClaiming = preparedText<AnswerClaimRow>(
  `${ANSWER_WRITE_CTES}, ` +
    `older as (select o.id, o.run_id, o.purpose, o.payload, o.attempts, o.not_before, ` +
    `exists (select 1 from runs r where r.id = o.run_id and r.status = 'running' and r.owner is distinct from $21::text) as running_elsewhere ` +
    `from outbox o where o.conversation_id = $13::text and o.status = 'pending' ` +
    `order by o.purpose = 'retract' desc, o.id limit 1), ` +
    `won as (insert into outbox_claims (conversation_id, owner, claim_until) select $13::text, $19::text, $20::bigint from run ` +
    `on conflict (conversation_id) do update set owner = excluded.owner, claim_until = excluded.claim_until ` +
    `where outbox_claims.owner = excluded.owner or outbox_claims.claim_until < $5::bigint returning conversation_id), ` +
    `ahead as (select exists (select 1 from won) and $17::text <> 'files' ` +
    `and not exists (select 1 from older where older.purpose = 'retract' or $17::text <> 'retract') ` +
    `and not exists (select 1 from runs r where r.id = $1::text and r.status = 'running' and r.owner is distinct from $21::text) as count, ` +
    `exists (select 1 from runs r where r.id = $1::text and r.status = 'running' and r.owner is distinct from $21::text) as elsewhere), ` +
    `posts as (insert into outbox (conversation_id, run_id, purpose, payload, status, created_at, attempts) ` +
    `select $13::text, run.id, $17::text, p.payload, 'pending', $5::bigint, case when p.n = 1 and ahead.count then 1 else 0 end ` +
    `from run, ahead, unnest($18::jsonb[]) with ordinality as p(payload, n) order by p.n ` +
    `returning id, run_id, purpose, payload, attempts, not_before), ` +
    `first as (select u.* from won, lateral (select * from (` +
    `select older.*, false as counted_now, true as is_older from older union all ` +
    `(select p.id, p.run_id, p.purpose, p.payload, 0, p.not_before, ahead.elsewhere, p.attempts = 1, false ` +
    `from posts p, ahead order by p.id limit 1)) c ` +
    `order by c.purpose = 'retract' desc, c.is_older desc, c.id limit 1) u), ` +
    `counted as (update outbox set attempts = outbox.attempts + 1 from first where first.is_older and outbox.id = first.id ` +
    `and outbox.status = 'pending' and outbox.attempts = 0 and outbox.not_before <= $5::bigint ` +
    `and outbox.purpose <> 'files' and not first.running_elsewhere returning outbox.id) ` +
    `select ${ANSWER_WRITE_RESULT}, exists (select 1 from won) as won, ` +
    `(select claim_until from outbox_claims where conversation_id = $13::text) as busy_until, ` +
    `f.id as first_id, f.run_id, f.purpose, f.payload, f.attempts, f.not_before, f.running_elsewhere, ` +
    `coalesce(f.counted_now, false) or exists (select 1 from counted) as counted ` +
    `from run left join first f on true`,
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
      return { ...answerWritten(row), claim: claimOf(row, answer.conversationId, now, holder) };
    },
  };
}

/** The claim as `claim` answers it: won with its first row (left to `nextPending` when unreadable), or busy until. */
function claimOf(row: AnswerClaimRow, conversationId: string, now: number, holder: PgClaimHolder): ClaimAttempt {
  if (!row.won) return { kind: 'busy', until: row.busy_until === null ? now : Number(row.busy_until) };
  const got = firstRowOf({ ...row, id: row.first_id }, conversationId);
  return { kind: 'claimed', claim: holder.held(conversationId, 'first' in got ? got.first : undefined) };
}
