import type { RunOutcome } from '../../run-records/run-outcome.js';
import type { FinalRunStatus } from '../../run-records/run-store.js';
import type { ScheduleRunResult } from '../../run-records/run-store.js';
import { notices } from '../run-notices.js';

/** Why a run's controller was aborted, when it was (`taken_over`: another process owns the run now). */
export type AbortReason = 'stop' | 'timeout' | 'shutdown' | 'taken_over';

/** What ends a run: its loop's outcome, or an exception nobody expected. */
export type RunEnding = RunOutcome | { kind: 'crashed'; error: unknown };

export interface SettlementInput {
  ending: RunEnding;
  abortReason: AbortReason | null;
  /** Attempts the task has had, this one included. */
  attempts: number;
  maxAttempts: number;
  maxRunMinutes: number;
  retryDelayMs(attempts: number): number;
  /** The run worked on a schedule's task: its outcome counts for (or against) that schedule. */
  fromSchedule?: boolean;
}

/** The task change a settlement asks for; applied only while the task is still in progress. */
export type TaskChange =
  | { kind: 'complete'; summary: string }
  | { kind: 'fail'; reason: string }
  | { kind: 'requeue'; delayMs: number; reason: string };

/** How to record a run's end: run status, task change and the note for the thread, decided in one place. */
export interface Settlement {
  /** null: leave the run as it is (waiting for an answer, or already ended by a stop or shutdown). */
  run: { to: FinalRunStatus; summary?: string | null; error?: string } | null;
  task: TaskChange | null;
  note: string | null;
  /** How the run's schedule should record it; null: not a scheduled run, or an ending that says nothing about the schedule. */
  schedule: ScheduleRunResult | null;
}

/**
 * Turns how a run ended into what to record and say. Pure, so every ending is tested without a
 * database or a platform; the coordinator applies it in one transaction.
 */
export function settleRun(input: SettlementInput): Settlement {
  const decided = decide(input);
  const { ending } = input;
  const schedule: ScheduleRunResult | null = !input.fromSchedule
    ? null
    : ending.kind === 'completed'
      ? { ok: true }
      : ending.kind === 'target_gone'
        ? { ok: false, reason: ending.reason }
        : null;
  return { ...decided, schedule };
}

/**
 * Whether how `ending` is settled depends on the task's attempts so far (a transient failure: retried, or failed
 * after the last attempt). Only then must the settler read the task before deciding.
 */
export function attemptsMatter(ending: RunEnding): boolean {
  return ending.kind === 'crashed' || (ending.kind === 'failed' && ending.transient);
}

function decide(input: SettlementInput): Omit<Settlement, 'schedule'> {
  const { ending } = input;
  const retryOrFail = (reason: string, error: string, transient: boolean): Omit<Settlement, 'schedule'> => {
    if (transient && input.attempts < input.maxAttempts) {
      const delayMs = input.retryDelayMs(input.attempts);
      return {
        run: { to: 'failed', error },
        task: { kind: 'requeue', delayMs, reason },
        note: notices.retrying(reason, delayMs),
      };
    }
    return { run: { to: 'failed', error }, task: { kind: 'fail', reason }, note: notices.failed(reason) };
  };
  switch (ending.kind) {
    case 'waiting':
      return { run: null, task: null, note: null };
    case 'completed':
      return {
        run: { to: 'completed', summary: ending.summary },
        task: { kind: 'complete', summary: ending.summary ?? 'Answered.' },
        note: null,
      };
    case 'aborted':
      if (input.abortReason !== 'timeout') return { run: null, task: null, note: null };
      return {
        run: { to: 'failed', error: 'time limit' },
        task: { kind: 'fail', reason: `Stopped after the ${input.maxRunMinutes}-minute time limit.` },
        note: notices.timeLimit(input.maxRunMinutes),
      };
    case 'step_limit':
      return {
        run: { to: 'failed', error: 'step limit' },
        task: { kind: 'fail', reason: `Stopped after ${ending.steps} steps (MAX_STEPS).` },
        note: notices.stepLimit(ending.steps),
      };
    case 'failed':
      return retryOrFail(ending.reason, ending.reason, ending.transient);
    case 'over_budget': {
      const note = notices.overBudget(ending.stop, ending.runTokens);
      return {
        run: {
          to: 'failed',
          error: `${ending.stop.unit === 'usd' ? 'spending' : 'token'} budget (${ending.stop.scope})`,
        },
        task: { kind: 'fail', reason: note },
        note,
      };
    }
    case 'target_gone':
      // Nobody can read a note there, so none is posted; the reason is kept on the run and the task.
      return {
        run: { to: 'failed', error: `target gone: ${ending.reason}` },
        task: { kind: 'fail', reason: notices.targetGone(ending.reason) },
        note: null,
      };
    case 'crashed': {
      const error = ending.error instanceof Error ? ending.error.message : String(ending.error);
      return retryOrFail(notices.crashed, `internal error: ${error}`, true);
    }
  }
}
