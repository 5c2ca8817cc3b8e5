import { pausableDeadline } from '../../clock.js';
import type { RunRow, TaskRow } from '../../db/schema.js';
import { RunFencedError, type RunFence } from '../../run-records/run-fence.js';
import type { RunLoss } from './cluster-membership.js';
import { fenceRunWrites } from './fenced-run-writes.js';
import type { CoordinatorDeps } from './run-deps.js';
import type { RunLauncher, RunResume } from './run-launch.js';
import type { NextTicket } from './next-claims.js';
import type { AbortReason, RunEnding } from './run-settlement.js';
import type { RunSettler } from './run-settler.js';
import { runWorkingStatus } from './run-working-status.js';

/** A run executing in this process: what stops it, why it was stopped, and when its execution has unwound. */
export interface ActiveRun {
  runId: string;
  taskId: number | null;
  controller: AbortController;
  reason: AbortReason | null;
  done: Promise<void>;
}

/** What an execution is started with: the coordinator's parts and its bookkeeping of the runs in flight. */
export interface RunExecution {
  readonly deps: CoordinatorDeps;
  readonly launcher: RunLauncher;
  readonly settler: RunSettler;
  /** The runs executing here, by conversation: an execution adds itself and removes itself when it ends. */
  readonly active: Map<string, ActiveRun>;
  /** Runs stopped while their claim was under way: they are not launched. */
  readonly stoppedBeforeLaunch: ReadonlyMap<string, string>;
  /** Shutting down: a run that ends starts nothing after it, and its preview goes. */
  stopping(): boolean;
  /**
   * The ticket for claiming the next work in the settlement's call (next-claims.ts), taken while the run still holds
   * its slot; undefined: nothing is to start after it (shutting down).
   */
  askNext(conversationId: string): NextTicket | undefined;
  /** Once this run has left `active`: launches what its settlement claimed, and starts the conversation's next work. */
  afterEnd(conversationId: string, ticket: NextTicket | undefined): void;
}

/**
 * Starts executing a claimed run. Synchronous up to registering it as active, so the claim hands over without a gap.
 * `fence` is what the claim wrote: every write of this execution is conditional on it (fenced-run-writes.ts). The
 * execution ends with the settler's record of how it ended, except when another process owns the run by then.
 */
export function launchRun(
  x: RunExecution,
  conversationId: string,
  run: RunRow,
  task: TaskRow | null,
  fence: RunFence,
  resume?: RunResume,
): void {
  if (x.stoppedBeforeLaunch.get(conversationId) === run.id) return;
  const { data, clock, logger, cluster } = x.deps;
  const ref = data.conversations.refOf(conversationId);
  if (!ref || !x.deps.platforms.has(ref.platform)) {
    logger.error({ conversationId }, 'no adapter for this conversation; failing the run');
    void x.settler
      .failUnlaunchable(conversationId, run, task)
      .catch((err: unknown) => logger.error({ err, runId: run.id }, 'failing a run without an adapter failed'));
    return;
  }
  const controller = new AbortController();
  const entry: ActiveRun = {
    runId: run.id,
    taskId: task?.id ?? null,
    controller,
    reason: null,
    done: Promise.resolve(),
  };
  x.active.set(conversationId, entry);
  const writes = fenceRunWrites(fence, data, (err) => refused(x, conversationId, entry, err));
  cluster?.runStarted(run.id, conversationId, (why) => lose(x, conversationId, entry, why), fence.owner);
  // The time limit does not count while a person answers a question a tool asked (ToolContext.holdRunTime).
  const deadline = pausableDeadline(clock, x.deps.limits.maxRunMs, () => {
    entry.reason ??= 'timeout';
    controller.abort();
  });
  const working = runWorkingStatus(x.deps.platforms.presence, ref, run.id, task, logger);
  const execute = async () => {
    // A run taken over is answered again by its new owner: its unfinished preview goes, as at a shutdown.
    const shuttingDown = () => x.stopping() || entry.reason === 'taken_over';
    const outcome = await x.launcher.execute({
      conversationId,
      ref,
      run,
      task,
      signal: controller.signal,
      writes,
      working,
      ...(resume ? { resume } : {}),
      shuttingDown,
      holdTime: deadline.hold,
    });
    await settle(outcome);
  };
  // One ticket an execution, answered at most once: a crash after the call answered does not claim again.
  let ticket: NextTicket | undefined;
  const settle = (ending: RunEnding) => {
    ticket ??= x.askNext(conversationId);
    const next = ticket?.answer === undefined ? ticket : undefined;
    return x.settler.settle(conversationId, run, task, ending, entry.reason, writes, next);
  };
  entry.done = execute()
    .catch(async (err: unknown) => {
      // Refused because another process owns the run now (logged by `refused`): it is not ours to settle.
      if (err instanceof RunFencedError) return;
      // An exception nobody expected (a failed write, a bug): end the run so the conversation is free again.
      logger.error({ err, runId: run.id, conversationId }, 'run crashed');
      await settle({ kind: 'crashed', error: err }).catch((again: unknown) => {
        if (!(again instanceof RunFencedError))
          logger.error({ err: again, runId: run.id }, 'recording the crashed run failed');
      });
    })
    .finally(() => {
      if (entry.reason === 'taken_over')
        logger.info({ runId: run.id, conversationId }, 'stopped working on a run owned elsewhere now');
      deadline.clear();
      x.active.delete(conversationId);
      cluster?.runEnded(run.id);
      working.clear();
      // In the same tick as the run left `active`: its slot passes to what its settlement claimed.
      x.afterEnd(conversationId, ticket);
    });
}

/** Gives up a run this process no longer owns: stopped from another process, or taken over. Not settled here. */
function lose(x: RunExecution, conversationId: string, entry: ActiveRun, why: RunLoss): void {
  if (x.active.get(conversationId) !== entry) return;
  entry.reason ??= why === 'stopped' ? 'stop' : 'taken_over';
  entry.controller.abort();
  const { logger, data } = x.deps;
  logger.info({ runId: entry.runId, conversationId, why }, 'gave up a run owned elsewhere now');
  if (why === 'stopped')
    void data.posts
      .dropUnsent(entry.runId)
      .catch((err: unknown) =>
        logger.warn({ err, runId: entry.runId }, 'dropping unsent pieces of a stopped run failed'),
      );
}

/**
 * A write of the run was refused by its fence: this process stalled past its lease and another took the
 * run over (and runs it again). Stops it here at once — no settlement, no post, no further tool or model call.
 */
function refused(x: RunExecution, conversationId: string, entry: ActiveRun, err: RunFencedError): void {
  x.deps.logger.warn(
    { runId: entry.runId, conversationId, owner: err.fence.owner, generation: err.fence.generation },
    'a write of this run was refused: another process took it over while this one stalled past its lease; stopping it here',
  );
  if (x.active.get(conversationId) !== entry) return;
  entry.reason = 'taken_over';
  entry.controller.abort();
}
