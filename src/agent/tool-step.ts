import { answerActionId } from '../chat/action-id.js';
import type { PostIntent } from './agent-types.js';
import type { PendingQuestion, StoredToolCall } from '../records/stored-values.js';
import { activityOfEndedTool, activityOfTool, progressReports, type RunActivity } from '../runs/run-activity.js';
import { isTargetGone } from '../errors.js';
import { APPROVAL_OPTIONS } from './approval-decision.js';
import { newQuestionId } from './question-identity.js';
import { signInWait } from './sign-in-wait.js';
import type { RunOutcome } from '../runs/run-outcome.js';
import type { ToolEffect, ToolOutcome } from './tools/tool.js';
import { PRIVATE_RESULT_SUMMARY, runPrivacy, type RunPrivacy } from './run-privacy.js';
import { approvalText } from './approval-text.js';
import type { ToolStepDeps, ToolStepInput } from './tool-step-types.js';

export type { AwaitPost, ToolStepDeps, ToolStepInput } from './tool-step-types.js';

/** What a step shows of a call's result (task cards, step lines): nothing of one that is private. */
function shownResult(outcome: ToolOutcome, hidden: boolean): unknown {
  if (!hidden) return outcome.result;
  return outcome.result.ok ? { ok: true } : { ok: false, error: '' };
}

/** A question or approval of a run whose posts are held (its private material, others reading): to its principal alone. */
function askedPrivately(privacy: RunPrivacy): { shownTo?: string } {
  return privacy.holdsPosts && privacy.privateTo !== null ? { shownTo: privacy.privateTo } : {};
}

/**
 * Parks the run and records its question in one transaction (an answer typed the moment the question
 * appears must find the run waiting; a crash leaves both or neither), then waits for the post; the
 * poster records its message id on the run. When the place is gone for good the run is unparked
 * before the error goes on, so no question waits where nobody can see it.
 */
async function parkAndAsk(
  input: ToolStepInput,
  deps: ToolStepDeps,
  pending: PendingQuestion,
  intent: PostIntent,
  waiting: RunActivity = { activity: 'waiting' },
): Promise<RunOutcome> {
  const { runId } = input;
  deps.activity?.(waiting);
  const ticket = await deps.posts.atomically(async (tx) => {
    if (!(await tx.runs.park(runId, pending, deps.now() + deps.askTimeoutMs))) return null;
    return deps.posts.record(input.context.conversationId, runId, intent, tx);
  });
  if (!ticket) return { kind: 'aborted' };
  try {
    await input.awaitPost(ticket);
  } catch (err) {
    if (isTargetGone(err)) await deps.runs.unpark(runId);
    throw err;
  }
  return { kind: 'waiting', question: pending };
}

/**
 * Executes one model step's tool calls in order. A call that needs approval parks the run (like
 * ask_user) and records the calls after it, so the step resumes exactly where it stopped once a person
 * decides; other control effects (updates, questions, completion) behave as in a plain step.
 * Returns the run's outcome when the step ends the run or parks it, else null: call the model again.
 */
export async function runToolCalls(input: ToolStepInput, deps: ToolStepDeps): Promise<RunOutcome | null> {
  const { runId, context, signal } = input;
  const { conversationId } = context;
  let ask: { call: StoredToolCall; effect: Extract<ToolEffect, { kind: 'ask' }> } | null = null;
  let complete: string | null = input.completeSummary ?? null;
  // A step run on its own (no run's privacy handed over) still marks what is private to its principal.
  const privacy = input.privacy ?? runPrivacy(context.principal?.userId ?? context.userId, false);
  const toolRow = (callId: string, result: unknown, outcome?: ToolOutcome) => ({
    conversationId,
    runId,
    role: 'tool' as const,
    content: JSON.stringify(result),
    toolCallId: callId,
    privateTo: privacy.privateTo,
    ...(outcome?.memoryIds && outcome.memoryIds.length > 0 ? { memoryIds: outcome.memoryIds } : {}),
  });
  const record = async (callId: string, result: unknown, outcome?: ToolOutcome): Promise<void> => {
    await deps.transcript.append(toolRow(callId, result, outcome));
  };

  for (let i = 0; i < input.calls.length; i++) {
    const call = input.calls[i]!;
    if (signal.aborted) return { kind: 'aborted' };
    const gated = call.id === input.approvedCallId ? null : deps.tools.approvalNeeded(call, context);
    // "Always allow here" is the consent of the person the run acts for, never of whoever clicked it in another run.
    if (
      gated &&
      !(await deps.grants.isGranted(conversationId, gated.name, context.principal?.userId ?? context.userId))
    ) {
      if (ask) {
        await record(ask.call.id, {
          ok: false,
          error:
            'This question was not asked because a tool call needed approval first. Ask it again if you still need to.',
        });
        ask = null;
      }
      const question = approvalText(gated.name, call, gated.shown);
      const id = newQuestionId();
      const pending: PendingQuestion = {
        id,
        approval: { tool: gated.name, call, remaining: input.calls.slice(i + 1), completeSummary: complete },
        question,
        options: APPROVAL_OPTIONS.map((o) => o.label),
        toolCallId: call.id,
        askedAt: deps.now(),
        messageId: null,
        userId: input.approverId,
      };
      const buttons = APPROVAL_OPTIONS.map((o, n) => ({
        actionId: answerActionId(runId, id, n),
        label: o.label,
        ...(o.style ? { style: o.style } : {}),
      }));
      const waiting: RunActivity = {
        activity: 'waiting',
        toolName: gated.name,
        step: { id: call.id, status: 'waiting' },
      };
      return parkAndAsk(
        input,
        deps,
        pending,
        {
          purpose: 'approval',
          text: question,
          ...(input.approverId ? { mentionUserId: input.approverId } : {}),
          buttons,
          ...askedPrivately(privacy),
        },
        waiting,
      );
    }
    // The call's effects are not writes of the run: the run must still be this process's, or nothing is done.
    await deps.confirmHeld?.();
    deps.activity?.(activityOfTool(call.name, call.id));
    // A private server's words while it runs are as private as its result: the step shows none of them.
    const quiet = privacy.privateTo !== null || deps.tools.privateSource(call, context);
    const progress = deps.activity && !quiet ? progressReports(deps.activity, call.name, call.id, deps.now) : null;
    const activity = deps.activity;
    // While the call's server waits for the person to answer its question, the step says so (not "running").
    const reportWaiting = activity
      ? (on: boolean) =>
          activity(
            on
              ? {
                  ...activityOfTool(call.name),
                  activity: 'waiting',
                  step: { id: call.id, status: 'waiting', waitingFor: 'answer' },
                }
              : activityOfTool(call.name, call.id),
          )
      : null;
    // The call knows where the run stands on private material (run_code keeps a private run's files its principal's).
    const privacyNow = { privateTo: privacy.privateTo, othersRead: privacy.othersRead };
    let outcome = await deps.tools.execute(
      call,
      reportWaiting
        ? { ...context, ...(progress ? { reportProgress: progress.report } : {}), reportWaiting, privacy: privacyNow }
        : { ...context, privacy: privacyNow },
    );
    progress?.end();
    // From the first private result on, the run's rows are its principal's alone (this result's row too).
    if (outcome.private) privacy.obtained();
    // Cut short by a shutdown (or by losing the run to another process): no result, as after a crash. Recovery decides
    // what the call comes to (a question its server was waiting on is carried over, and the call made again).
    if (signal.aborted && deps.shuttingDown?.() && !outcome.result.ok) return { kind: 'aborted' };
    // A call waiting for its person to connect the server is a step waiting on them (reported as the run parks).
    if (outcome.effect?.kind !== 'sign_in')
      deps.activity?.(
        activityOfEndedTool(call.name, call.id, shownResult(outcome, quiet || privacy.privateTo !== null)),
      );
    if (outcome.effect?.kind === 'ask' && ask !== null) {
      outcome = {
        result: { ok: false, error: 'Only one question at a time: ask it after the first one is answered.' },
      };
    }
    if (outcome.effect?.kind === 'ask') {
      ask = { call, effect: outcome.effect };
      continue;
    }
    if (outcome.effect?.kind === 'sign_in') {
      // Like an approval: the call waits (parked, durable) until its principal has connected, then runs.
      if (ask)
        await record(ask.call.id, {
          ok: false,
          error:
            'This question was not asked because a tool call waits for a sign-in first. Ask it again if you still need to.',
        });
      const wait = signInWait({
        server: outcome.effect.server,
        call,
        remaining: input.calls.slice(i + 1),
        completeSummary: complete,
        userId: context.principal?.userId ?? context.userId,
        now: deps.now(),
      });
      return parkAndAsk(input, deps, wait.pending, wait.intent, {
        ...activityOfTool(call.name),
        activity: 'waiting',
        step: { id: call.id, status: 'waiting', waitingFor: 'connect' },
      });
    }
    if (outcome.effect?.kind === 'complete') complete = outcome.effect.summary;
    const effect = outcome.effect;
    if (effect?.kind === 'update') {
      // The update and its result are one write: a crash between them can neither lose it nor post it twice.
      const held = privacy.holdsPosts;
      // The model is told where its update went: to its principal alone, until they share it.
      const result = held
        ? {
            ok: true,
            posted: false,
            note: 'Shown to the person you work for alone: it uses what only they can see. They choose whether to share it in the thread.',
          }
        : outcome.result;
      const ticket = await deps.posts.atomically(async (tx) => {
        await tx.transcript.append(toolRow(call.id, result));
        return deps.posts.record(conversationId, runId, privacy.intent('update', effect.text, null), tx);
      });
      await input.awaitPost(ticket);
      // A held update is not in the thread: what streams above goes on there.
      if (!held) deps.activity?.({ ...activityOfTool(call.name), posted: true });
    } else {
      await record(call.id, outcome.result, outcome);
    }
  }
  if (signal.aborted) return { kind: 'aborted' };
  if (complete !== null)
    return { kind: 'completed', summary: privacy.privateTo !== null ? PRIVATE_RESULT_SUMMARY : complete };
  if (ask) {
    const userId = context.userId;
    const { question, options } = ask.effect;
    const id = newQuestionId();
    const pending: PendingQuestion = {
      id,
      question,
      options,
      toolCallId: ask.call.id,
      askedAt: deps.now(),
      messageId: null,
      userId,
    };
    const buttons = options.map((label, n) => ({ actionId: answerActionId(runId, id, n), label }));
    return parkAndAsk(input, deps, pending, {
      purpose: 'question',
      text: question,
      ...(userId ? { mentionUserId: userId } : {}),
      ...(buttons.length > 0 ? { buttons } : {}),
      ...askedPrivately(privacy),
    });
  }
  return null;
}
