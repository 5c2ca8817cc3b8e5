import type { Clock } from '../clock.js';
import type { PgDb } from '../db/pg-client.js';
import type { Logger } from '../logger.js';
import type { Cluster, ClusterHooks } from '../runtime/process/cluster-hooks.js';
import type { ClusterWake, RunLoss } from '../runs/runtime/cluster-membership.js';
import type { InterruptedRun } from '../runtime/restarts/recovery.js';
import { createRunLeases, type RunState } from './run-leases.js';
import { createWakeChannel, type ClusterPeers, type WakeEvent } from './wake-channel.js';

export interface PostgresClusterOptions {
  /** The pool the store uses; leases are kept and wake-ups sent through it. */
  db: PgDb;
  /** DATABASE_URL: the wake-up listener holds a connection of its own. */
  url: string;
  /** This process's name in `runs.owner` (cluster/process-id.ts). */
  processId: string;
  clock: Clock;
  logger: Logger;
  /** RUN_LEASE_SECONDS in ms: how long a run stays ours without a renewal. Renewals and takeover looks come every third of it. */
  leaseMs: number;
}

/** The cluster of a process on PostgreSQL, with what it sees of the other processes (for the shared pacing). */
export interface PostgresCluster extends Cluster {
  readonly peers: ClusterPeers;
}

interface OwnedRun {
  conversationId: string;
  lose: (why: RunLoss) => void;
  /** Until the adoption wrote this process as the owner, a renewal would be refused: `failed` is tried again at the next tick. */
  adoption: 'pending' | 'done' | 'failed';
}

/**
 * Why a run we execute is no longer ours, from where it stands now; null: it is still ours, or ending on its
 * own. Another owner counts only once ours was written: before that the owner is still the previous one.
 */
function lossOf(state: RunState | undefined, processId: string, adopted: boolean): RunLoss | null {
  if (!state) return 'taken_over';
  if (state.status === 'cancelled') return 'stopped';
  if (state.status === 'interrupted' || (adopted && state.status === 'running' && state.owner !== processId))
    return 'taken_over';
  return null;
}

/**
 * Errand processes sharing one PostgreSQL database. Every third of the lease this process renews the
 * leases of the runs it executes (a refused renewal means the run was stopped elsewhere or taken over:
 * the coordinator aborts it without settling) and takes over runs whose lease ran out (exactly one
 * process wins each; it recovers the run as a restart would). Wake-ups over LISTEN/NOTIFY make every
 * other process pump, so new work starts wherever a slot is free; a `stop` wake-up makes the owner of
 * that conversation's run check it at once; a `schedule` wake-up makes every other scheduler re-read that
 * schedule. The ticks stay the safety net for lost notifications: they take over runs and arm the
 * schedules due within the next three ticks that this process has not armed.
 */
export function createPostgresCluster(options: PostgresClusterOptions): PostgresCluster {
  const { db, processId, clock, logger, leaseMs } = options;
  const leases = createRunLeases(db, clock);
  const wake = createWakeChannel({ url: options.url, pool: db.$client, processId, clock, logger });
  const owned = new Map<string, OwnedRun>();
  const tickMs = Math.max(1, Math.floor(leaseMs / 3));
  /** Each tick arms what falls due within three ticks, so a schedule whose wake-up was lost is armed before its time even if a tick fails. */
  const scheduleHorizonMs = 3 * tickMs;
  /** Running runs seen without any lease at the last look: an owner adopts within moments, so a second sighting means nobody will. */
  let unleased = new Set<string>();
  let hooks: ClusterHooks | null = null;
  let closed = false;
  let timer: unknown = null;
  let ticking: Promise<void> = Promise.resolve();
  let pumping = false;
  let pumpAgain = false;

  const pump = () => {
    if (!hooks || closed) return;
    if (pumping) {
      pumpAgain = true;
      return;
    }
    pumping = true;
    const h = hooks;
    void (async () => {
      do {
        pumpAgain = false;
        await h.pump().catch((err: unknown) => logger.error({ err }, 'pumping after a wake-up failed'));
      } while (pumpAgain && !closed);
      pumping = false;
    })();
  };

  // Only while another process may listen: alone, a wake-up would reach only this process, which ignores its own.
  const notify = (kind: ClusterWake, conversationId: string) => {
    wake
      .wakeOthers(kind, conversationId)
      .catch((err: unknown) =>
        logger.warn(
          { err, kind, conversationId },
          'waking the other processes failed; their heartbeat will find the work',
        ),
      );
  };

  /** Tells the coordinator about runs that are no longer ours, from their stored state. */
  const check = async (runIds: readonly string[]) => {
    if (runIds.length === 0) return;
    const states = new Map((await leases.states(runIds)).map((s) => [s.id, s]));
    for (const id of runIds) {
      const run = owned.get(id);
      const loss = run ? lossOf(states.get(id), processId, run.adoption === 'done') : null;
      if (run && loss) {
        owned.delete(id);
        run.lose(loss);
      }
    }
  };

  /** Writes this process as the owner of a run it just started; one that is no longer running is checked at once. */
  const adopt = (runId: string, run: OwnedRun) => {
    run.adoption = 'pending';
    leases
      .adopt(runId, processId, leaseMs)
      .then((ok) => {
        if (owned.get(runId) !== run) return;
        run.adoption = 'done';
        if (!ok) return check([runId]);
      })
      .catch((err: unknown) => {
        run.adoption = 'failed';
        logger.warn({ err, runId }, 'taking the lease of a run failed; retrying at the next tick');
      });
  };

  const renew = async () => {
    for (const [id, run] of owned) if (run.adoption === 'failed') adopt(id, run);
    const ids = [...owned].filter(([, r]) => r.adoption === 'done').map(([id]) => id);
    if (ids.length === 0) return;
    const kept = new Set(await leases.renew(processId, ids, leaseMs));
    await check(ids.filter((id) => !kept.has(id)));
  };

  /** Takes over runs whose lease ran out (never our own: a late renewal is not a death) and recovers each one won. */
  const takeOverExpired = async (h: ClusterHooks): Promise<InterruptedRun[]> => {
    const recovered: InterruptedRun[] = [];
    const seenUnleased = new Set<string>();
    for (const run of await leases.expired(clock.now())) {
      if (closed) break;
      if (owned.has(run.id)) continue;
      if (run.leaseUntil === null && !unleased.has(run.id)) {
        seenUnleased.add(run.id);
        continue;
      }
      if (!(await leases.takeOver(run.id, processId, run.leaseUntil, leaseMs))) continue;
      logger.warn(
        { runId: run.id, previousOwner: run.owner },
        'took over a run whose process stopped renewing its lease',
      );
      const result = await h.recoverRun(run.id);
      if (result) {
        recovered.push(result);
        notify('task', result.conversationId);
      }
    }
    unleased = seenUnleased;
    return recovered;
  };

  /** Arms schedules due soon that a lost wake-up left unarmed here (a schedule wake-up is a hint, the table the truth). */
  const reviewSchedules = async (h: ClusterHooks) => {
    try {
      await h.schedules?.review(scheduleHorizonMs);
    } catch (err) {
      logger.warn({ err }, 'reviewing the schedules due soon failed; retrying at the next tick');
    }
  };

  const tick = async () => {
    const h = hooks;
    if (!h) return;
    try {
      await renew();
    } catch (err) {
      logger.warn({ err }, 'renewing run leases failed; retrying at the next tick');
    }
    try {
      if ((await takeOverExpired(h)).length > 0) pump();
    } catch (err) {
      logger.warn({ err }, 'taking over expired runs failed; retrying at the next tick');
    }
    await reviewSchedules(h);
    await wake
      .lookForOthers()
      .catch((err: unknown) => logger.warn({ err }, 'looking for other processes failed; retrying at the next tick'));
  };

  const loop = () => {
    timer = clock.setTimer(() => {
      timer = null;
      if (closed) return;
      ticking = tick().finally(() => {
        if (!closed) loop();
      });
    }, tickMs);
  };

  const onWake = (event: WakeEvent) => {
    if (event.kind === 'resync') {
      pump();
      void renew().catch((err: unknown) => logger.warn({ err }, 'checking our runs after a resync failed'));
      if (hooks) void reviewSchedules(hooks);
      return;
    }
    if (event.fromSelf) return;
    if (event.kind === 'task' || event.kind === 'answer') {
      pump();
      // An MCP question settled there may be one a call waits on here.
      if (event.kind === 'answer') hooks?.answered?.(event.conversationId);
    } else if (event.kind === 'schedule') {
      const scheduleId = Number(event.conversationId);
      if (!Number.isSafeInteger(scheduleId))
        return void logger.warn({ key: event.conversationId }, 'ignored a schedule wake-up without a schedule id');
      void hooks?.schedules
        ?.refresh(scheduleId)
        .catch((err: unknown) =>
          logger.warn({ err, scheduleId }, 're-reading a schedule changed elsewhere failed; the next review arms it'),
        );
    } else if (event.kind === 'stop') {
      const ids = [...owned].filter(([, r]) => r.conversationId === event.conversationId).map(([id]) => id);
      void check(ids).catch((err: unknown) =>
        logger.warn({ err, conversationId: event.conversationId }, 'checking a run stopped elsewhere failed'),
      );
    }
  };

  return {
    async recover(h) {
      const recovered = await takeOverExpired(h);
      if (recovered.length > 0) logger.info({ count: recovered.length }, 'took over runs of stopped processes');
      return recovered;
    },
    async start(h) {
      hooks = h;
      wake.onWake(onWake);
      await wake.start();
      loop();
    },
    async stop() {
      closed = true;
      if (timer !== null) clock.clearTimer(timer);
      await ticking;
      await wake.close();
      // Runs aborted by the shutdown stay `running`: hand them to the other processes now rather than after the lease.
      const released = await leases.release(processId);
      if (released > 0)
        logger.info({ released }, 'released the leases of unfinished runs for another process to take over');
    },
    runStarted(runId, conversationId, lose, claimedBy) {
      // A claim made here (start, resume, takeover) wrote this process's owner and lease in its own transaction.
      const run: OwnedRun = { conversationId, lose, adoption: claimedBy === processId ? 'done' : 'pending' };
      owned.set(runId, run);
      if (run.adoption === 'pending') adopt(runId, run);
    },
    runEnded(runId) {
      owned.delete(runId);
    },
    wake: notify,
    peers: { alone: wake.alone, onJoined: wake.onJoined },
  };
}
