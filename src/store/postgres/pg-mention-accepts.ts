import type { Clock } from '../../clock.js';
import { conversationKey } from '../../chat/conversation-ref.js';
import type { RunRow, TaskRow } from '../../db/schema.js';
import { runs, tasks } from '../../db/pg-schema.js';
import type { MentionAccepts } from '../../tasks/mention-accepts.js';
import type { PgExecutor } from './pg-executor.js';
import { rowReader } from './pg-json-rows.js';
import { preparedText } from './pg-prepared.js';
import { busyAs, claimFromJson, onPool, runClaimValues, type ClaimJson } from './pg-run-claims.js';
import type { RunOwnership } from './pg-run-ownership.js';

const acceptMention = preparedText<{ accepted: AcceptJson }>(
  'select errand_accept_mention($1::text, $2::bigint, $3::text, $4::text, $5::text, $6::text, $7::text, $8::text, ' +
    '$9::text, $10::text, $11::text, $12::jsonb, $13::text, $14::boolean, $15::text, $16::text, $17::bigint, $18::integer) as accepted',
);

/** What errand_accept_mention (drizzle-pg/0017_accept_mention.sql) returns. */
type AcceptJson =
  | { kind: 'duplicate' }
  | { kind: 'task'; task: Record<string, unknown>; active: Record<string, unknown> | null; claimed: ClaimJson | null };

const readTask = rowReader<TaskRow>(tasks);
const readRun = rowReader<RunRow>(runs);

/**
 * A mention's accept on PostgreSQL as one call of errand_accept_mention, a transaction of its own on the pool:
 * the de-duplication record, the conversation's upsert, the active run read under its row lock, the task and its
 * claim. What the dispatcher wrote with `begin`, seven statements and `commit`. Where a run waits for an answer
 * the function raises EB002 and writes nothing ('undecided').
 */
export function createPgMentionAccepts(db: PgExecutor, clock: Clock, ownership: RunOwnership | null): MentionAccepts {
  return {
    async accept(m) {
      const conversationId = conversationKey(m.ref);
      const roles = m.requesterRoles && m.requesterRoles.length > 0 ? JSON.stringify(m.requesterRoles) : null;
      const call = async () => {
        const v = runClaimValues(clock, ownership);
        const [row] = await acceptMention(db, [
          m.dedupeKey,
          v.now,
          conversationId,
          m.ref.platform,
          m.ref.workspace,
          m.ref.channel,
          m.ref.thread,
          m.timezone ? m.timezone : null,
          m.title,
          m.description,
          m.requestedBy,
          roles,
          m.sourceMessageId,
          m.claim,
          v.runId,
          v.owner,
          v.leaseUntil,
          v.generation,
        ]).catch(busyAs(conversationId));
        return row!.accepted;
      };
      let json: AcceptJson;
      try {
        json = await onPool(db, call);
      } catch (err) {
        if ((err as { code?: unknown } | null)?.code === 'EB002') return { kind: 'undecided' };
        throw err;
      }
      if (json.kind === 'duplicate') return json;
      return {
        kind: 'task',
        conversationId,
        task: readTask(json.task),
        active: json.active ? readRun(json.active) : null,
        claimed: json.claimed ? claimFromJson(json.claimed) : null,
      };
    },
  };
}
