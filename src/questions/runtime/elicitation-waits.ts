import { ElicitationDesk, type ElicitationDeskDeps } from '../mcp/elicitation-desk.js';
import type { ElicitationRuns } from '../mcp/elicitation-runs.js';
import type { RunStore } from '../../runs/run-store.js';
import type { ClusterMembership } from '../../runtime/process/cluster-hooks.js';
import type { RunCoordinator } from '../../runtime/runs/run-coordinator.js';
import type { CarriedQuestions } from '../../runtime/runs/carried-questions.js';
import { carryOverElicitation } from './elicitation-carry-over.js';
import { closeCarriedOver } from './elicitation-resume.js';

/**
 * The runs MCP servers' questions belong to, for the elicitation desk. Like sign-in waits (sign-in-waits.ts): a
 * question settled for a run parked on it (its call died with its process) is recorded with the run, guarded by the
 * question's id, then delivered as a recorded answer is — resumed here when a slot is free, else by the next free
 * slot here or in another process. A question settled while its call still waits in another process wakes that one.
 */
export function elicitationWaits(deps: {
  runs: Pick<RunStore, 'get' | 'recordAnswer'>;
  coordinator: Pick<RunCoordinator, 'answer'>;
  cluster: Pick<ClusterMembership, 'wake'>;
}): ElicitationRuns {
  return {
    async stopped(runId) {
      const run = await deps.runs.get(runId);
      return run === null || run.status === 'cancelled';
    },
    async settled(runId, questionId, state, userId) {
      const run = await deps.runs.get(runId);
      const question = run?.question;
      if (
        !run ||
        run.status !== 'waiting_user' ||
        question?.elicitation?.id !== questionId ||
        question.id === undefined
      )
        return false;
      if (!(await deps.runs.recordAnswer(runId, { text: state, userId, source: 'elicitation' }, question.id)))
        return false;
      const recorded = await deps.runs.get(runId);
      if (recorded?.status === 'waiting_user') await deps.coordinator.answer(recorded, null, null);
      return true;
    },
    wake: (conversationId) => deps.cluster.wake('answer', conversationId),
  };
}

type WaitsDeps = Parameters<typeof elicitationWaits>[0];

/** The elicitation desk of this process, wired to its runs: questions any process can answer, carried over restarts. */
export function createElicitationDesk(deps: Omit<ElicitationDeskDeps, 'runs'> & WaitsDeps): ElicitationDesk {
  const { runs, coordinator, cluster, ...desk } = deps;
  return new ElicitationDesk({ ...desk, runs: elicitationWaits({ runs, coordinator, cluster }) });
}

/** What a run's resume and restart recovery do with a question a run waits on across a restart, plugged into both. */
export const carriedQuestions: CarriedQuestions = { carryOver: carryOverElicitation, close: closeCarriedOver };
