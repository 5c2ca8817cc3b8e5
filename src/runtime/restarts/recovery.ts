import type { RunPosts } from '../../agent/agent-types.js';
import type { RunRow } from '../../db/schema.js';
import type { Logger } from '../../logger.js';
import type { Store } from '../../store/store.js';
import type { CarriedQuestions } from '../runs/carried-questions.js';
import { notices } from '../../runs/run-notices.js';
import { showSession, type SessionShowDeps } from '../runs/session-shown.js';

/** A run that died with its process, and what recovery did with its task. */
export interface InterruptedRun {
  readonly conversationId: string;
  readonly taskId: number | null;
  /**
   * `resumed`: re-queued; `gave_up`: the task had been interrupted `attempts` times and was failed;
   * `finished`: the run had recorded its final answer before it died, so it is completed, not run again;
   * `waiting`: its call died waiting on an MCP server's question, and the run now waits on that question.
   */
  readonly action: 'resumed' | 'gave_up' | 'finished' | 'waiting';
  readonly attempts: number;
}

/** What recovering a run needs: where its note goes, the log, and how many attempts a task gets. */
export interface RecoveryDeps {
  posts: RunPosts;
  logger: Logger;
  maxAttempts: number;
  /** ASK_TIMEOUT_MINUTES: absent, a call that died waiting on an MCP server's question is not carried over. */
  askTimeoutMs?: number;
  /** Carries a call that died waiting on an MCP server's question over to a wait on that question. */
  carried: CarriedQuestions;
}

/**
 * What happens to a run whose process died under it (already marked `interrupted`, inside the caller's
 * transaction `tx`): its task goes back to pending (it resumes from the transcript), unless the task has
 * used up its attempts — a task that crashes the process would otherwise restart it forever. The note
 * telling the thread what happens next is recorded in the same transaction, so a crash during recovery
 * neither loses it nor repeats it; the outbox posts it after what was still pending there.
 * A preview of an answer that was being written when the process died is removed from the thread
 * (`RunPosts.retractPreviews`) first: the run answers again. A run whose call died waiting on an MCP server's
 * question waits on that question instead (`deps.carried`).
 * One function for both ways a run dies: a restart of the only process, and a takeover in a cluster.
 */
export async function recoverInterruptedRun(tx: Store, run: RunRow, deps: RecoveryDeps): Promise<InterruptedRun> {
  // Before the note and anything the run posts again: its half-written preview is taken back first.
  await deps.posts.retractPreviews(run.id, tx);
  const task = run.taskId !== null ? await tx.tasks.get(run.taskId) : null;
  const attempts = task?.attempts ?? 0;
  const answer = await finalAnswerOf(tx, run);
  if (answer !== null) {
    // Its answer is in the outbox (posted, or posted now): running the task again would answer twice.
    await tx.runs.transition(run.id, ['interrupted'], 'completed', { summary: answer });
    if (task && task.status === 'in_progress') await tx.tasks.complete(run.conversationId, task.id, answer);
    deps.logger.info(
      { runId: run.id, taskId: run.taskId },
      'an interrupted run had already recorded its final answer; completed it',
    );
    return { conversationId: run.conversationId, taskId: run.taskId, action: 'finished', attempts };
  }
  if (deps.askTimeoutMs !== undefined && (await deps.carried.carryOver(tx, run, deps.askTimeoutMs, deps.logger))) {
    return { conversationId: run.conversationId, taskId: run.taskId, action: 'waiting', attempts };
  }
  if (task && task.status === 'in_progress' && attempts >= deps.maxAttempts) {
    await tx.tasks.fail(run.conversationId, task.id, `Interrupted by restarts ${attempts} times.`);
    deps.logger.warn({ taskId: task.id, attempts }, 'a task was interrupted by restarts too often; failed it');
    await deps.posts.record(
      run.conversationId,
      run.id,
      { purpose: 'note', text: notices.restartLimit(task.id, attempts) },
      tx,
    );
    return { conversationId: run.conversationId, taskId: task.id, action: 'gave_up', attempts };
  }
  if (run.taskId !== null) await tx.tasks.requeue(run.taskId, 0);
  await deps.posts.record(run.conversationId, run.id, { purpose: 'note', text: notices.restarted(run.taskId) }, tx);
  return { conversationId: run.conversationId, taskId: run.taskId, action: 'resumed', attempts };
}

/** Transcript rows read back to find a run's last step: its final answer is the newest of them. */
const LAST_STEP_ROWS = 50;

/**
 * The run's final answer when its last recorded step was one (assistant text with no tool call: the
 * loop ends the run there, and the answer was recorded for posting in the same write); else null.
 */
async function finalAnswerOf(tx: Store, run: RunRow): Promise<string | null> {
  const last = (await tx.transcript.recent(run.conversationId, LAST_STEP_ROWS))
    .filter((m) => m.runId === run.id)
    .at(-1);
  if (!last || last.role !== 'assistant' || (last.toolCalls?.length ?? 0) > 0) return null;
  return last.content?.trim() ? last.content : null;
}

/**
 * After a restart of the only process, runs that were `running` died with it: each is marked
 * `interrupted` and recovered (see recoverInterruptedRun). Waiting runs are left alone: the answer still
 * resumes them. This must run before any adapter delivers an event, or a run started by this very
 * process would be taken for a dead one. Never in a cluster: there, other processes' runs are alive.
 */
export async function requeueInterruptedRuns(deps: RecoveryDeps): Promise<InterruptedRun[]> {
  const result = await deps.posts.atomically(async (tx) => {
    const recovered: InterruptedRun[] = [];
    for (const run of await tx.runs.interruptAllRunning()) recovered.push(await recoverInterruptedRun(tx, run, deps));
    return recovered;
  });
  if (result.length > 0) deps.logger.info({ count: result.length }, 'interrupted runs recovered');
  return result;
}

/**
 * Recovers one run taken over from a dead process (the caller won the takeover, so no other process
 * does this): marks it `interrupted` and recovers it in one transaction. Null when the run was no longer
 * running (its old owner was alive after all and ended it first): then there is nothing to recover.
 */
export async function recoverTakenOverRun(runId: string, deps: RecoveryDeps): Promise<InterruptedRun | null> {
  const result = await deps.posts.atomically(async (tx) => {
    if (
      !(await tx.runs.transition(runId, ['running'], 'interrupted', {
        error: 'its process stopped renewing the lease',
      }))
    )
      return null;
    const run = await tx.runs.get(runId);
    return run ? recoverInterruptedRun(tx, run, deps) : null;
  });
  if (result)
    deps.logger.info({ runId, action: result.action }, 'took over a run of a process that stopped; recovered it');
  return result;
}

/**
 * Shows the thread session of a recovered run where it stands now (its process died with the session showing it
 * working): waiting on a question when it waits on one, else idle — a run resumed shows itself working again when
 * it starts. So a session is never left working after a crash or a takeover. Returns the run; failures are logged.
 */
export function showRecoveredSession(run: InterruptedRun, deps: SessionShowDeps): InterruptedRun {
  showSession(deps, run.conversationId, run.action === 'waiting' ? 'waiting' : 'idle');
  return run;
}
