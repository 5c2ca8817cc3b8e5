import type {
  PendingApproval,
  PendingElicitation,
  PendingSignIn,
  StoredToolCall,
} from '../../records/stored-values.js';
import { unansweredResult, type ElicitationOutcome } from '../../agent/elicitation-wait.js';
import { DENIED_RESULT, type ApprovalDecision } from '../../agent/approval-decision.js';
import { notSignedInResult, type SignInOutcome } from '../../agent/sign-in-wait.js';

/**
 * How a parked run goes on: the approval it asked for and what was decided, the sign-in it waited on and how it
 * ended, or the MCP server's question its interrupted call waited on and how that ended.
 */
export type ResumeInput =
  | { readonly approval: PendingApproval; readonly decision: ApprovalDecision | 'timeout' }
  | { readonly signIn: PendingSignIn; readonly outcome: SignInOutcome }
  | { readonly elicitation: PendingElicitation; readonly outcome: ElicitationOutcome };

/** The step a resumed run finishes: the waiting call's result when it does not run, then the calls to run. */
export interface ResumedStep {
  readonly skipped: { readonly callId: string; readonly result: unknown } | null;
  readonly calls: StoredToolCall[];
  /** The waiting call runs without asking for approval again (it was allowed, or had passed the gate before its sign-in). */
  readonly approvedCallId?: string;
  readonly completeSummary: string | null;
}

/**
 * What the step that parked the run does now that it resumes. `userId`: the run's principal (named in the model's
 * result); `offered`: whether a tool is offered in this run now.
 */
export function resumedStep(
  resume: ResumeInput,
  askTimeoutMs: number,
  userId: string | null,
  offered: (tool: string) => boolean,
): ResumedStep {
  const waiting = 'approval' in resume ? resume.approval : 'signIn' in resume ? resume.signIn : resume.elicitation;
  const { call, remaining, completeSummary } = waiting;
  const go: ResumedStep = { skipped: null, calls: [call, ...remaining], approvedCallId: call.id, completeSummary };
  if ('elicitation' in resume) {
    // Answered: the call is made again with the same arguments, and its server's repeated question gets the stored answer.
    if (resume.outcome.kind === 'answered') return go;
    return {
      skipped: { callId: call.id, result: unansweredResult(resume.elicitation, resume.outcome, userId, askTimeoutMs) },
      calls: remaining,
      completeSummary,
    };
  }
  if ('approval' in resume) {
    if (resume.decision === 'once' || resume.decision === 'always') return go;
    const minutes = Math.round(askTimeoutMs / 60_000);
    const result =
      resume.decision === 'deny'
        ? DENIED_RESULT
        : { ok: false, error: `Nobody approved this tool call within ${minutes} minutes, so it was not run.` };
    return { skipped: { callId: call.id, result }, calls: remaining, completeSummary };
  }
  const { outcome } = resume;
  if (outcome.kind === 'connected') {
    if (offered(call.name)) return go;
    // The call named a server's sign-in stand-in, replaced by the server's own tools once a session listed them.
    const note = `${userId ?? 'The person you act for'} is connected to ${resume.signIn.server} now; its tools are offered from the next step.`;
    return {
      skipped: { callId: call.id, result: { ok: true, connected: true, note } },
      calls: remaining,
      completeSummary,
    };
  }
  return {
    skipped: { callId: call.id, result: notSignedInResult(resume.signIn, outcome, userId, askTimeoutMs) },
    calls: remaining,
    completeSummary,
  };
}
