import type { SignInWaits } from '../mcp/sign-in-notes.js';
import type { RunStore } from '../../run-records/run-store.js';
import type { RunCoordinator } from '../../runs/runtime/run-coordinator.js';

/**
 * Ends runs' waits for a sign-in, from the OAuth callback. The end is first recorded with the run, guarded by the
 * question's id (a run that stopped waiting, or waits on something else now, is left alone), then delivered as a
 * recorded answer is: resumed here when a slot is free, else by the next free slot here or in another process.
 */
export function signInWaits(deps: {
  runs: Pick<RunStore, 'get' | 'recordAnswer'>;
  coordinator: Pick<RunCoordinator, 'answer'>;
}): SignInWaits {
  return {
    async end(runId, server, end) {
      const run = await deps.runs.get(runId);
      const question = run?.question;
      if (!run || run.status !== 'waiting_user' || question?.signIn?.server !== server || question.id === undefined)
        return false;
      if (!(await deps.runs.recordAnswer(runId, { text: end, userId: null, source: 'sign_in' }, question.id)))
        return false;
      const recorded = await deps.runs.get(runId);
      if (recorded?.status === 'waiting_user') await deps.coordinator.answer(recorded, null, null);
      return true;
    },
  };
}
