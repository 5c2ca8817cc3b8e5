import type { RunPosts } from '../../agent/agent-types.js';
import type { Clock } from '../../clock.js';
import type { RunRow, TaskRow } from '../../db/schema.js';
import { noopMetrics, type Metrics, type RunOutcomeLabel } from '../../metrics/metrics.js';
import type { RunStore } from '../../run-records/run-store.js';
import type { ScheduleRunResult } from '../../run-records/run-store.js';
import type { TaskService } from '../../tasks/task-service.js';
import type { RunWrites } from './fenced-run-writes.js';
import type { NextTicket } from './next-claims.js';
import type { RunLimits } from './run-deps.js';
import type { RunEnd } from '../../run-records/run-end.js';
import { attemptsMatter, settleRun, type AbortReason, type RunEnding, type Settlement } from './run-settlement.js';

export interface SettlerDeps {
  tasks: TaskService;
  runs: RunStore;
  /** Where the note for the thread is recorded, in the settling transaction. */
  posts: RunPosts;
  clock: Clock;
  limits: Pick<RunLimits, 'maxAttempts' | 'maxRunMs' | 'retryDelayMs'>;
  /** Where run outcomes are counted (default: nowhere). */
  metrics?: Metrics;
  /** A scheduled run ended in a way its schedule records (a success, or a target that is gone). */
  scheduleRunEnded?(scheduleId: number, result: ScheduleRunResult): Promise<void>;
  /** The task was put back to be tried again after `delayMs`: the coordinator starts it then. */
  requeued(conversationId: string, delayMs: number): void;
}

/**
 * Records how runs end. What to record is decided by `settleRun` (pure, run-settlement.ts); this applies it:
 * run status, task change and the note for the thread in one transaction, then the schedule's record, the
 * metric and a retry.
 */
export class RunSettler {
  constructor(private readonly deps: SettlerDeps) {}

  /**
   * Records how a run ended. The transaction is a write of the run like its steps (`writes`: refused when
   * another process owns the run now). With `next`, where the store writes the end in one call that can claim the
   * next work (PostgreSQL), it does, and its answer is set on `next` the moment the call answers.
   */
  async settle(
    conversationId: string,
    run: RunRow,
    task: TaskRow | null,
    ending: RunEnding,
    reason: AbortReason | null,
    writes: RunWrites,
    next?: NextTicket,
  ): Promise<void> {
    const { tasks, limits } = this.deps;
    // The task as it is now: its attempts (what a retry counts) and whether it is still in progress. A store that
    // settles in one call reads the latter itself; the former is read first only when the ending counts attempts.
    const read = () => (task ? tasks.get(task.id) : Promise.resolve(null));
    const current = writes.settle && !attemptsMatter(ending) ? undefined : await read();
    const settlement = settleRun({
      ending,
      abortReason: reason,
      attempts: current?.attempts ?? limits.maxAttempts,
      maxAttempts: limits.maxAttempts,
      maxRunMinutes: Math.round(limits.maxRunMs / 60_000),
      retryDelayMs: limits.retryDelayMs,
      fromSchedule: task?.scheduleId != null,
    });
    const change = settlement.run;
    if (!change) return;
    const t = settlement.task;
    // One call (PostgreSQL) for an end without a note for the thread (a note is an outbox row of the transaction).
    const end: RunEnd | null =
      writes.settle && !settlement.note && t?.kind !== 'requeue'
        ? {
            conversationId,
            from: ['running'],
            to: change.to,
            ...(change.summary !== undefined ? { summary: change.summary } : {}),
            ...(change.error ? { error: change.error } : {}),
            task: task && t ? { id: task.id, finish: t } : null,
          }
        : null;
    const applied =
      end && writes.settle
        ? await (next && writes.settleNext ? this.settleNext(writes.settleNext, end, next) : writes.settle(end))
        : await this.inTransaction(
            conversationId,
            run,
            task,
            current === undefined ? await read() : current,
            settlement,
            writes,
          );
    if (!applied) return;
    if (settlement.schedule && task?.scheduleId != null)
      await this.deps.scheduleRunEnded?.(task.scheduleId, settlement.schedule);
    this.countEnd(change.to, run);
    if (settlement.task?.kind === 'requeue') this.deps.requeued(conversationId, settlement.task.delayMs);
  }

  /** Writes the end and claims the next work in one call; what it claimed is on `next` before anything else can fail. */
  private async settleNext(
    settleNext: NonNullable<RunWrites['settleNext']>,
    end: RunEnd,
    next: NextTicket,
  ): Promise<boolean> {
    const { applied, claimed, more } = await settleNext(end, next.ask);
    next.answer = { claimed, more };
    return applied;
  }

  /** Writes a settlement in one transaction: the run's status, the task change while it is in progress, the note. */
  private inTransaction(
    conversationId: string,
    run: RunRow,
    task: TaskRow | null,
    current: TaskRow | null,
    settlement: Settlement,
    writes: RunWrites,
  ): Promise<boolean> {
    const { clock, posts } = this.deps;
    const change = settlement.run!;
    return writes.posts.atomically(async (tx) => {
      if (
        !(await tx.runs.transition(run.id, ['running'], change.to, {
          ...(change.summary !== undefined ? { summary: change.summary } : {}),
          ...(change.error ? { error: change.error } : {}),
        }))
      )
        return false;
      const open = current?.status === 'in_progress';
      if (task && open && settlement.task) {
        const t = settlement.task;
        if (t.kind === 'complete') await tx.tasks.complete(conversationId, task.id, t.summary);
        else if (t.kind === 'fail') await tx.tasks.fail(conversationId, task.id, t.reason);
        else await tx.tasks.requeue(task.id, clock.now() + t.delayMs, t.reason);
      }
      if (settlement.note) await posts.record(conversationId, run.id, { purpose: 'note', text: settlement.note }, tx);
      return true;
    });
  }

  /** Fails a claimed run that cannot execute here: no adapter is connected for its platform. */
  async failUnlaunchable(conversationId: string, run: RunRow, task: TaskRow | null): Promise<void> {
    if (await this.deps.runs.transition(run.id, ['running'], 'failed', { error: 'no adapter for this platform' }))
      this.countEnd('failed', run);
    if (task) await this.deps.tasks.fail(conversationId, task.id, 'No chat adapter is connected for this platform.');
  }

  /** Counts a run that reached a final status, with its time since it started. */
  countEnd(outcome: RunOutcomeLabel, run: RunRow): void {
    (this.deps.metrics ?? noopMetrics).runFinished(outcome, (this.deps.clock.now() - run.startedAt) / 1000);
  }
}
