import type { Clock } from '../../clock.js';
import { conversationKey } from '../../chat/conversation-ref.js';
import type { RunRow, TaskRow } from '../../db/schema.js';
import { runs, tasks } from '../../db/pg-schema.js';
import type { MentionAccepts } from '../../tasks/mention-accepts.js';
import { heldConversation } from './pg-conversation-locks.js';
import type { PgExecutor } from './pg-executor.js';
import { rowReader } from './pg-json-rows.js';
import { preparedText } from './pg-prepared.js';
import { busyAs, claimFromJson, runClaimValues, type ClaimJson } from './pg-run-claims.js';
import type { RunOwnership } from './pg-run-ownership.js';

const acceptMention = preparedText<{ accepted: AcceptJson }>(
  'select errand_accept_mention($1::text, $2::bigint, $3::text, $4::text, $5::text, $6::text, $7::text, $8::text, ' +
    '$9::text, $10::text, $11::text, $12::jsonb, $13::text, $14::boolean, $15::text, $16::text, $17::bigint, $18::integer) as accepted',
);

/** What errand_accept_mention (drizzle-pg/0017_accept_mention.sql) returns. */
type AcceptJson =
  | { kind: 'duplicate' }
  | { kind: 'waiting'; active: Record<string, unknown> }
  | { kind: 'task'; task: Record<string, unknown>; active: Record<string, unknown> | null; claimed: ClaimJson | null };

const readTask = rowReader<TaskRow>(tasks);
const readRun = rowReader<RunRow>(runs);

/**
 * A mention's accept on PostgreSQL as one call of errand_accept_mention, in the caller's transaction: the
 * de-duplication record, the conversation's upsert (its row stays locked until that transaction ends), the active
 * run read under the lock, the task and its claim. What the dispatcher wrote with seven statements.
 */
export function createPgMentionAccepts(db: PgExecutor, clock: Clock, ownership: RunOwnership | null): MentionAccepts {
  return {
    async accept(m) {
      const conversationId = conversationKey(m.ref);
      const v = runClaimValues(clock, ownership);
      const roles = m.requesterRoles && m.requesterRoles.length > 0 ? JSON.stringify(m.requesterRoles) : null;
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
      const json = row!.accepted;
      if (json.kind === 'duplicate') return json;
      // The upsert locked the conversation's row: later writes of this transaction there ask for nothing.
      heldConversation(db, conversationId);
      if (json.kind === 'waiting') return { kind: 'waiting', conversationId, active: readRun(json.active) };
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
