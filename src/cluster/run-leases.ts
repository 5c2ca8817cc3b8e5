import { and, eq, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import type { Clock } from '../clock.js';
import type { PgDb } from '../db/pg-client.js';
import { runs } from '../db/pg-schema.js';
import { prepared } from '../store/postgres/pg-prepared.js';

/** A `running` run whose owner stopped renewing its lease: another process should take it over. */
export interface ExpiredRun {
  id: string;
  conversationId: string;
  owner: string | null;
  /** The lease as read; pass it to takeOver, which succeeds only if nobody changed it meanwhile. */
  leaseUntil: number | null;
}

export interface RunLeases {
  /**
   * Extends the leases of runs this process still owns to now + `leaseMs` and returns their ids. A run
   * missing from the result is no longer ours (taken over, or no longer running): stop working on it.
   */
  renew(owner: string, runIds: readonly string[], leaseMs: number): Promise<string[]>;
  /** Running runs whose lease ended before `now` (or that never had one), oldest lease first. */
  expired(now: number): Promise<ExpiredRun[]>;
  /**
   * Claims an expired run for `newOwner` with a fresh lease of `leaseMs` and a new lease generation, so the
   * previous owner's writes for it fail from now on (run-records/run-fence.ts). Compare-and-set on the lease
   * read by `expired`: when several processes try at once exactly one gets true; the others get false and
   * must leave the run alone. Fails too if the lease has not ended or the run is no longer running.
   */
  takeOver(runId: string, newOwner: string, oldLeaseUntil: number | null, leaseMs: number): Promise<boolean>;
  /**
   * Makes a run `owner` has just claimed or resumed (a transaction of the store made it `running` for this
   * process) its own, with a fresh lease. False when it is no longer running: stopped or taken over meanwhile.
   * The lease generation goes up only when the owner changes (a store that writes no owners).
   */
  adopt(runId: string, owner: string, leaseMs: number): Promise<boolean>;
  /** Where runs stand now, to tell why a renewal was refused (stopped, taken over, or simply ended). */
  states(runIds: readonly string[]): Promise<RunState[]>;
  /** Ends the leases of the owner's running runs now, so another process takes them over at its next look (a graceful stop). */
  release(owner: string): Promise<number>;
}

/** A run's status and owner as stored. */
export interface RunState {
  id: string;
  status: string;
  owner: string | null;
}

const P = sql.placeholder;
/**
 * The two statements every process sends at each tick (a third of a lease), prepared by name with `'running'` written
 * as a literal: a bound status left PostgreSQL's generic plan unable to use the partial index of running runs
 * (`runs_lease_idx`), so it kept planning a custom plan at every call (≈ 75–160 µs of the server's CPU each: the
 * biggest part of an idle process's cost to the server; bench/OVERHEAD.md, issue 40's eighth round). The renewal takes
 * its ids as one array, so its text (and its prepared statement) is the same whatever the number of runs.
 */
const RUNNING = sql`${runs.status} = 'running'`;
const renewLeases = prepared((d) =>
  d
    .update(runs)
    .set({ leaseUntil: sql`${P('leaseUntil')}` })
    .where(and(sql`${runs.id} = any(${P('ids')}::text[])`, eq(runs.owner, P('owner')), RUNNING))
    .returning({ id: runs.id }),
);
const expiredLeases = prepared((d) =>
  d
    .select({ id: runs.id, conversationId: runs.conversationId, owner: runs.owner, leaseUntil: runs.leaseUntil })
    .from(runs)
    .where(and(RUNNING, or(lt(runs.leaseUntil, P('now')), isNull(runs.leaseUntil))))
    .orderBy(sql`${runs.leaseUntil} asc nulls first`),
);

/**
 * Run ownership across processes: each `running` run has an owner and a lease its owner renews while it
 * works. A process that dies stops renewing; once the lease ends, any process may take the run over
 * (and recover it as after a restart). Lease times come from each process's clock, so processes' clocks
 * must agree to well within a lease (NTP); renew at a fraction of the lease (a third) to survive a slow tick.
 */
export function createRunLeases(db: PgDb, clock: Pick<Clock, 'now'>): RunLeases {
  return {
    async renew(owner, runIds, leaseMs) {
      if (runIds.length === 0) return [];
      const rows = await renewLeases(db, { ids: [...runIds], owner, leaseUntil: clock.now() + leaseMs });
      return rows.map((r) => r.id);
    },

    async expired(now) {
      return expiredLeases(db, { now });
    },

    async takeOver(runId, newOwner, oldLeaseUntil, leaseMs) {
      const now = clock.now();
      const sameLease = oldLeaseUntil === null ? isNull(runs.leaseUntil) : eq(runs.leaseUntil, oldLeaseUntil);
      const rows = await db
        .update(runs)
        // A new generation: whatever the previous owner still tries to write for the run is refused (run-fence.ts).
        .set({ owner: newOwner, leaseUntil: now + leaseMs, leaseGeneration: sql`${runs.leaseGeneration} + 1` })
        .where(
          and(
            eq(runs.id, runId),
            eq(runs.status, 'running'),
            sameLease,
            or(isNull(runs.leaseUntil), lt(runs.leaseUntil, now)),
          ),
        )
        .returning({ id: runs.id });
      return rows.length === 1;
    },

    async adopt(runId, owner, leaseMs) {
      const rows = await db
        .update(runs)
        // A run the store's claim already wrote as ours keeps its generation (its execution's fence); one
        // that changes hands gets a new one, like a takeover.
        .set({
          owner,
          leaseUntil: clock.now() + leaseMs,
          leaseGeneration: sql`case when ${runs.owner} is distinct from ${owner} then ${runs.leaseGeneration} + 1 else ${runs.leaseGeneration} end`,
        })
        .where(and(eq(runs.id, runId), eq(runs.status, 'running')))
        .returning({ id: runs.id });
      return rows.length === 1;
    },

    async states(runIds) {
      if (runIds.length === 0) return [];
      return db
        .select({ id: runs.id, status: runs.status, owner: runs.owner })
        .from(runs)
        .where(inArray(runs.id, [...runIds]));
    },

    async release(owner) {
      const rows = await db
        .update(runs)
        .set({ leaseUntil: clock.now() - 1 })
        .where(and(eq(runs.owner, owner), eq(runs.status, 'running')))
        .returning({ id: runs.id });
      return rows.length;
    },
  };
}
