import { outboxPayloadSchema, outboxPurposeSchema, type PendingPost } from '../outbox-store.js';
import type { PgExecutor } from './pg-executor.js';
import { claimUpsertSql, runningElsewhereSql } from './pg-outbox-claim-sql.js';
import { preparedText } from './pg-prepared.js';

/** A conversation's first pending row as the claim's statement hands it back (node-postgres's own types). */
interface FirstRowRaw {
  readonly id: string | number | null;
  readonly run_id: string | null;
  readonly purpose: string | null;
  readonly payload: unknown;
  readonly attempts: number | null;
  readonly not_before: string | number | null;
  readonly running_elsewhere: boolean | null;
  readonly counted: boolean;
}

/**
 * An outbox claim and the conversation's first pending row in one statement (issue 40, fifth round): the
 * upsert wins only a free, lapsed or already-own claim, as `claimRow` does, and only a won claim reads the
 * row, in the order and with the `runningElsewhere` test of `nextPending`. No row: the claim was lost. A row
 * of nulls: won, nothing pending. The read sees what was committed when the statement began; a row committed
 * after that kicks its conversation, whose worker then runs again (the poster's re-kick), as after a
 * separate `nextPending`.
 *
 * The statement also counts the first try of that row (`attempts` 0 → 1) when the turn tries it right away (issue 40,
 * seventh round: the poster's separate `countAttempt` is not sent): due at `$4`, its run not running elsewhere, and
 * not a `files` row (whose delivery reads its bytes, and may fail for lack of them, before it counts). Only a first try
 * is counted here: a row tried before is first looked up on the platform, and that lookup, which may find the post or
 * fail, comes before its count. The row is returned with `attempts` as they were (0) and `counted` set; the update
 * checks the row is still pending with no try counted, so a count another statement made meanwhile is not doubled.
 *
 * The row is read only when the snapshot holds no claim of another owner (`prior`). The snapshot is taken when the
 * statement begins, before the upsert, which waits for a holder's lock on the claim row: a holder that marks its last
 * row posted and gives the claim up in one transaction (a streamed answer's mark) makes the upsert wait, then win, while
 * the snapshot still reads that row as pending, and a turn handed it would post it a second time. A claim taken over
 * from another owner (given up meanwhile, or lapsed) therefore reads nothing (`taken`): the turn reads the first row
 * itself, after this statement committed.
 */
const claimWithFirstRow = preparedText<FirstRowRaw & { readonly taken: boolean | null }>(
  `with prior as (select exists (select 1 from outbox_claims c where c.conversation_id = $1::text and c.owner <> $2::text) as taken), ` +
    `won as (${claimUpsertSql('values ($1::text, $2::text, $3::bigint)', '$4::bigint')}), ` +
    `first as (select o.id, o.run_id, o.purpose, o.payload, o.attempts, o.not_before, ` +
    `${runningElsewhereSql('o.run_id', '$5::text')} as running_elsewhere, ` +
    `prior.taken from won cross join prior left join lateral (select id, run_id, purpose, payload, attempts, not_before from outbox ` +
    `where not prior.taken and outbox.conversation_id = won.conversation_id and outbox.status = 'pending' ` +
    `order by outbox.purpose = 'retract' desc, outbox.id limit 1) o on true), ` +
    `counted as (update outbox set attempts = outbox.attempts + 1 from first where outbox.id = first.id ` +
    `and outbox.status = 'pending' and outbox.attempts = 0 and outbox.not_before <= $4::bigint ` +
    `and outbox.purpose <> 'files' and not first.running_elsewhere returning outbox.id) ` +
    `select first.*, exists (select 1 from counted) as counted from first`,
);

/**
 * What the claim found: lost, or won with the first pending row (null: none; `unreadable`: a row to fail, then read on;
 * `taken`: taken over from another owner, the row left for the turn to read).
 */
export type ClaimedFirst =
  | { readonly won: false }
  | { readonly won: true; readonly taken: true }
  | { readonly won: true; readonly first: PendingPost | null }
  | { readonly won: true; readonly unreadable: number };

/**
 * Claims `conversationId`'s outbox rows for `owner` until `until` and reads its first pending row in the same
 * statement. `me` is the process id `runningElsewhere` compares runs' owners with (null: a store without one).
 */
export async function claimWithFirst(
  db: PgExecutor,
  values: { conversationId: string; owner: string; until: number; now: number; me: string | null },
): Promise<ClaimedFirst> {
  const { conversationId, owner, until, now, me } = values;
  const [raw] = await claimWithFirstRow(db, [conversationId, owner, until, now, me]);
  if (!raw) return { won: false };
  if (raw.taken) return { won: true, taken: true };
  if (raw.id === null) return { won: true, first: null };
  const id = Number(raw.id);
  const payload = outboxPayloadSchema.safeParse(raw.payload);
  const purpose = outboxPurposeSchema.safeParse(raw.purpose);
  if (!payload.success || !purpose.success) return { won: true, unreadable: id };
  return {
    won: true,
    first: {
      id,
      conversationId,
      runId: raw.run_id,
      purpose: purpose.data,
      payload: payload.data,
      attempts: raw.attempts ?? 0,
      notBefore: Number(raw.not_before ?? 0),
      runningElsewhere: raw.running_elsewhere === true,
      ...(raw.counted ? { attemptCounted: true as const } : {}),
    },
  };
}
