import type { Outbox } from '../../outbox/outbox.js';
import type { RunStore } from '../../run-records/run-store.js';
import type { RunCoordinator } from '../../runs/runtime/run-coordinator.js';

export interface FinishOpenWorkDeps {
  coordinator: Pick<RunCoordinator, 'idle' | 'pump' | 'stopConversation' | 'inFlight'>;
  runs: Pick<RunStore, 'active'>;
  outbox: Pick<Outbox, 'idle'>;
}

/** What finishing left undone. */
export interface FinishedWork {
  /** Runs stopped because they asked a question nobody can answer any more. */
  questionsStopped: number;
}

/**
 * Lets the work in this process run to its end before a stop that nobody asked to interrupt it (the
 * console's piped input ended): every run executing ends, each task ready now (a line queued behind
 * the first) starts and ends, and every post recorded is delivered. A run of `silenced` that asks a
 * question is stopped, since nobody there can answer it; the caller says so. Tasks whose time has not
 * come (a retry after a backoff, a schedule) are left for the next start.
 */
export async function finishOpenWork(deps: FinishOpenWorkDeps, silenced: readonly string[]): Promise<FinishedWork> {
  const { coordinator, runs, outbox } = deps;
  let questionsStopped = 0;
  for (;;) {
    await coordinator.idle();
    // The question is shown before its run is stopped: a stop drops what its run has not posted yet.
    await outbox.idle();
    let changed = false;
    for (const conversationId of silenced) {
      if ((await runs.active(conversationId))?.status !== 'waiting_user') continue;
      // Stopping also starts the conversation's next ready task, if there is one.
      if ((await coordinator.stopConversation(conversationId, false)).stoppedRun) {
        questionsStopped++;
        changed = true;
      }
    }
    if ((await coordinator.pump()) > 0) changed = true;
    if (!changed && coordinator.inFlight === 0) return { questionsStopped };
  }
}
