import type { PendingApproval, PendingSignIn, StoredToolCall } from '../records/stored-values.js';
import { DENIED_RESULT, type ApprovalDecision } from './approval-decision.js';
import { notSignedInResult, type SignInOutcome } from './sign-in-wait.js';

/** How a parked run goes on: the approval it asked for and what was decided, or the sign-in it waited on and how it ended. */
export type ResumeInput =
  | { readonly approval: PendingApproval; readonly decision: ApprovalDecision | 'timeout' }
  | { readonly signIn: PendingSignIn; readonly outcome: SignInOutcome };

/** The step a resumed run finishes: the waiting call's result when it does not run, then the calls to run. */
export interface ResumedStep {
  readonly skipped: { readonly callId: string; readonly result: unknown } | null;
  readonly calls: StoredToolCall[];
  /** The waiting call runs without asking for approval again (it was allowed, or had passed the gate before its sign-in). */
  readonly approvedCallId?: string;
  readonly completeSummary: string | null;
}

/** What the step that parked the run does now that it resumes. `userId`: the run's principal (named in the model's result). */
export function resumedStep(resume: ResumeInput, askTimeoutMs: number, userId: string | null): ResumedStep {
  const waiting = 'approval' in resume ? resume.approval : resume.signIn;
  const { call, remaining, completeSummary } = waiting;
  const go: ResumedStep = { skipped: null, calls: [call, ...remaining], approvedCallId: call.id, completeSummary };
  if ('approval' in resume) {
    if (resume.decision === 'once' || resume.decision === 'always') return go;
    const minutes = Math.round(askTimeoutMs / 60_000);
    const result = resume.decision === 'deny' ? DENIED_RESULT : { ok: false, error: `Nobody approved this tool call within ${minutes} minutes, so it was not run.` };
    return { skipped: { callId: call.id, result }, calls: remaining, completeSummary };
  }
  const { outcome } = resume;
  if (outcome.kind === 'connected') return go;
  return { skipped: { callId: call.id, result: notSignedInResult(resume.signIn, outcome, userId, askTimeoutMs) }, calls: remaining, completeSummary };
}
