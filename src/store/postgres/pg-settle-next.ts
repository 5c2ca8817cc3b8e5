import type { Clock } from '../../clock.js';
import { ConversationBusyError } from '../../run-records/conversation-busy-error.js';
import type { NextAsk, RunEnd, RunEndAnswer, SettledNext } from '../../run-records/run-end.js';
import type { RunFence } from '../../run-records/run-fence.js';
import type { PgExecutor } from './pg-executor.js';
import { preparedText } from './pg-prepared.js';
import { busyAs, claimFromJson, onPool, runClaimValues, type ClaimJson } from './pg-run-claims.js';
import type { RunOwnership } from './pg-run-ownership.js';
import { createPgRunSettle, settleArgs } from './pg-run-settle.js';
import { isTransaction } from './pg-within-transaction.js';

// The function of migration 0019_settle_run_next (drizzle-pg/): one named statement, prepared once per connection.
const settleRunNext = preparedText<{ r: { settled: RunEndAnswer; claimed: ClaimJson | null; more: boolean } }>(
  'select errand_settle_run_next($1::text, $2::text, $3::integer, $4::text[], $5::text, $6::text, $7::text, $8::bigint, $9::text, $10::integer, $11::text, $12::text, $13::text, $14::text[], $15::integer, $16::text, $17::text, $18::bigint, $19::integer) as r',
);

/**
 * A run's end and the claim of the next work as one call on PostgreSQL (issue 40, eleventh round): where a run's end
 * sent the settlement, then the pump's due-work read, then a claim, it sends `errand_settle_run_next`. The claim is
 * the pool's `claimNext(conversation, false)` (lock, active-run check), written for this process as the pump's claim
 * writes it (`runClaimValues`). When that claim finds the conversation busy (EB001: another run started there first)
 * the whole call rolls back, the end with it, and the end is written alone: nothing claimed, and `more` so the pump
 * looks again, as it always did.
 */
export function createPgSettleNext(
  db: PgExecutor,
  clock: Clock,
  ownership: RunOwnership | null,
): (fence: RunFence, end: RunEnd, ask: NextAsk) => Promise<SettledNext> {
  const settleAlone = createPgRunSettle(db, clock);
  return async (fence, end, ask) => {
    // Its claim takes a conversation's lock no transaction here would know it holds: a call of its own only.
    if (isTransaction(db)) throw new Error('settleNext is a transaction of its own: call it on the pool');
    const skip = [...ask.exclude, end.conversationId];
    const slots = Math.max(ask.slots, 1);
    try {
      const r = await onPool(db, async () => {
        const v = runClaimValues(clock, ownership);
        const claim = [skip, slots, v.runId, v.owner, v.leaseUntil, v.generation];
        const [row] = await settleRunNext(db, [...settleArgs(fence, end, v.now), ...claim]).catch(
          busyAs(end.conversationId),
        );
        return row?.r;
      });
      if (!r) throw new Error('errand_settle_run_next answered no row');
      const claimed = r.settled === 'settled' && r.claimed ? claimFromJson(r.claimed) : null;
      return { answer: r.settled, claimed, more: r.more };
    } catch (err) {
      if (!(err instanceof ConversationBusyError)) throw err;
      return { answer: await settleAlone(fence, end), claimed: null, more: true };
    }
  };
}
