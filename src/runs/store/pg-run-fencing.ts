import { and, eq, isNull, sql } from 'drizzle-orm';
import { runs } from '../../db/pg-schema.js';
import type { RunFence } from '../../run-records/run-fence.js';
import type { RunStore } from '../../run-records/run-store.js';
import type { PgExecutor } from '../../store/postgres/pg-executor.js';
import { prepared } from '../../store/postgres/pg-prepared.js';
import { isTransaction } from '../../store/postgres/pg-within-transaction.js';

const P = sql.placeholder;
// FOR NO KEY UPDATE: a takeover (or a renewal) of this row waits for the caller's transaction, and
// one that committed first is seen here; two writes of the same run take turns.
const holdsOwned = prepared((d) =>
  d
    .select({ id: runs.id })
    .from(runs)
    .where(and(eq(runs.id, P('id')), eq(runs.owner, P('owner')), eq(runs.leaseGeneration, P('generation'))))
    .for('no key update'),
);
const holdsUnowned = prepared((d) =>
  d
    .select({ id: runs.id })
    .from(runs)
    .where(and(eq(runs.id, P('id')), isNull(runs.owner), eq(runs.leaseGeneration, P('generation'))))
    .for('no key update'),
);

/** A run's last transition (`to`, `summary`, `error`, `now`): its question cleared, its end stamped. */
export const FINAL_SET = {
  status: sql`${P('to')}`,
  summary: sql`coalesce(${P('summary')}, ${runs.summary})`,
  error: sql`coalesce(${P('error')}, ${runs.error})`,
  updatedAt: sql`${P('now')}`,
  endedAt: sql`${P('now')}`,
  question: null,
  askExpiresAt: null,
};

/** The fence of `holds` as a condition of an update of the run's row (by primary key: `is not distinct from` costs nothing). */
const FENCED = sql`${runs.owner} is not distinct from ${P('owner')} and ${runs.leaseGeneration} = ${P('generation')}`;
export const fencedTransitionRun = prepared((d) =>
  d
    .update(runs)
    .set(FINAL_SET)
    .where(and(eq(runs.id, P('id')), sql`${runs.status} = any(${P('from')}::text[])`, FENCED))
    .returning({ id: runs.id }),
);
export const fencedCountRunStep = prepared((d) =>
  d
    .update(runs)
    .set({ steps: sql`${runs.steps} + 1`, updatedAt: sql`${P('now')}` })
    .where(and(eq(runs.id, P('id')), FENCED))
    .returning({ steps: runs.steps }),
);
/** A fence a write about to start must hold, and, once asked, whether it held. */
interface Expected {
  readonly fence: RunFence;
  held?: Promise<boolean>;
}

/** The fence as the placeholders of a fenced statement. */
export type FenceValues = { owner: string | null; generation: number };

/** The run fence's statements on one executor: `holds`, and `holds` folded into a write of the run's row. */
export interface PgRunFencing {
  readonly holds: RunStore['holds'];
  readonly expectFence: NonNullable<RunStore['expectFence']>;
  /**
   * Runs an update of run `id`'s row: `fenced`, with the expected fence's values, when a write expecting a
   * fence of that run starts with it, which then answers the fence (the row it returned: held and locked;
   * none: `holds` tells); else `plain`.
   */
  foldInto<R>(id: string, plain: () => Promise<R[]>, fenced: (fence: FenceValues) => Promise<R[]>): Promise<R[]>;
}

/**
 * The fence of a run's writes on PostgreSQL (run-records/run-fence.ts, issue 40). `holds` is a `for no key update`
 * read of the run's row; a write whose first statement updates that row anyway (a model step's count, the
 * run's final transition) checks the owner and generation in that update instead: an update of a row takes
 * the same row lock as `for no key update` and, under READ COMMITTED, re-reads a row changed meanwhile
 * before it matches, so it answers exactly what `holds` would, one statement fewer. Only a transaction's store
 * folds (its lock must last until the write commits); an update that matches nothing (the run has another
 * owner, or is not in the status the transition expects) asks `holds` which.
 */
export function createPgRunFencing(db: PgExecutor): PgRunFencing {
  const holds = async (fence: RunFence): Promise<boolean> => {
    const rows =
      fence.owner === null
        ? await holdsUnowned(db, { id: fence.runId, generation: fence.generation })
        : await holdsOwned(db, { id: fence.runId, owner: fence.owner, generation: fence.generation });
    return rows.length === 1;
  };
  let expected: Expected | null = null;
  return {
    holds,
    expectFence(fence) {
      if (!isTransaction(db)) return () => holds(fence);
      const slot: Expected = { fence };
      expected = slot;
      return () => {
        // Not taken by the write's first statement: checked now, sent right behind that statement.
        if (expected === slot) expected = null;
        slot.held ??= holds(fence);
        return slot.held;
      };
    },
    foldInto(id, plain, fenced) {
      const slot = expected;
      if (slot === null || slot.fence.runId !== id) return plain();
      expected = null;
      const update = fenced({ owner: slot.fence.owner, generation: slot.fence.generation });
      slot.held = update.then((rows) => rows.length === 1 || holds(slot.fence));
      // Awaited by the caller of expectFence; this keeps a failed update from being reported unhandled meanwhile.
      slot.held.catch(() => undefined);
      return update;
    },
  };
}
