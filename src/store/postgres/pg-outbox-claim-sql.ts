/*
 * The parts of the outbox claim's SQL that more than one statement sends: the claim's own (pg-outbox-first-row.ts) and
 * the answer's write that claims (pg-answer-claim.ts). Each takes the statement's placeholders for what it reads.
 */

/**
 * The claim's upsert of `rows` (`values (…)` or a `select`): it wins only a free claim, a lapsed one (`claim_until`
 * before `now`) or one this owner holds already, and returns the conversation it won.
 */
export function claimUpsertSql(rows: string, now: string): string {
  return (
    `insert into outbox_claims (conversation_id, owner, claim_until) ${rows} ` +
    `on conflict (conversation_id) do update set owner = excluded.owner, claim_until = excluded.claim_until ` +
    `where outbox_claims.owner = excluded.owner or outbox_claims.claim_until < ${now} returning conversation_id`
  );
}

/** Whether run `runId` is running in another process than `me` (PendingPost.runningElsewhere). */
export function runningElsewhereSql(runId: string, me: string): string {
  return `exists (select 1 from runs r where r.id = ${runId} and r.status = 'running' and r.owner is distinct from ${me})`;
}
