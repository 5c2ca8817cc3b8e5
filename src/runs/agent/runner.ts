import type { RunBudget } from '../../budget/budget-stop.js';
import type { ConversationRef } from '../../chat/conversation-ref.js';
import type { TranscriptStore } from '../../conversations/transcript-store.js';
import type { ImagePart } from '../../records/stored-values.js';
import type { RunOutcome } from '../../run-records/run-outcome.js';
import { isTargetGone, ModelError, RunAbortedError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { RunStore } from '../../run-records/run-store.js';
import type { AnswerStream } from '../../chat/chat-adapter.js';
import { createAnswerPreview } from '../../agent/answer-preview.js';
import { assembleContext, type RunMemory } from '../../agent/context-assembly.js';
import type { LlmClient } from '../../agent/llm-client.js';
import { calibrateTokenScale } from '../../agent/token-calibration.js';
import { estimateToolTokens } from '../../agent/token-estimate.js';
import { StoppedRequestError } from '../../agent/stopped-request.js';
import { stoppedRequestCharge } from '../../agent/stopped-request-charge.js';
import type { ToolRegistry } from '../../agent/tools/tool-registry.js';
import { resumedStep, type ResumeInput } from './resume-step.js';
import { runToolCalls, type AwaitPost, type ToolStepDeps } from './tool-step.js';
import type { ToolContext } from '../../agent/tools/tool.js';
import { PRIVATE_RESULT_SUMMARY, runPrivacy } from '../../agent/run-privacy.js';
import { writeAnswerStep } from './answer-write.js';

export interface RunnerDeps extends ToolStepDeps {
  llm: LlmClient;
  tools: ToolRegistry;
  transcript: TranscriptStore;
  runs: RunStore;
  logger: Logger;
  maxSteps: number;
  contextBudget: number;
  /** How many transcript rows to read before trimming to the budget. */
  historyRows?: number;
  /** Summaries of what falls out of the context, and long-term memories; absent: neither. */
  memory?: RunMemory;
  askTimeoutMs: number;
  now(): number;
  /** Opens the platform's live preview of an answer (STREAMING; null: the platform shows none); absent: answers are posted whole. */
  openPreview?: () => AnswerStream | null;
  /** True once the process is shutting down: an unfinished preview is removed (the restart answers again), not marked stopped. */
  shuttingDown?: () => boolean;
}

export interface RunInput {
  runId: string;
  conversation: ConversationRef;
  toolContext: ToolContext;
  systemPrompt: string;
  /** The run's goal (`goalMessage(task)`), sent with every request whatever the budget; null: the newest user message. */
  goal: string | null;
  /** Images attached to the goal (a person's request), sent with it on every step. */
  goalImages?: readonly ImagePart[];
  signal: AbortSignal;
  /** Who decides tool approvals in this run (null: whoever is in the thread). */
  approverId?: string | null;
  /** Token accounting and limits; absent: usage is neither recorded nor limited. */
  budget?: RunBudget;
  /** The model for this run's requests (a channel's own); absent: the configured one. */
  model?: string;
  /** Set when the run resumes after a person decided on a tool approval, or a sign-in it waited on ended. */
  resume?: ResumeInput;
  /** Model steps the run had recorded before this execution (a resumed run goes on counting from there). */
  stepsTaken: number;
  /**
   * People besides the principal read the conversation (a channel, its threads, a group DM): once the run holds
   * private material, its answers and updates go to the principal alone first. Absent: false (a 1:1 DM).
   */
  othersRead?: boolean;
}

function isAbort(err: unknown, signal: AbortSignal): boolean {
  return signal.aborted || err instanceof RunAbortedError;
}

/**
 * The agent loop for one run: context → model → post text → tools → repeat, until a plain
 * answer, task_complete, ask_user, the step limit, a failure, or an abort. Every step is
 * persisted before the next begins, so a restart can pick the run up from the transcript.
 * A post that fails because the conversation's place is gone for good ends the run at once
 * (`target_gone`): nobody would see another answer, so the model is not called again.
 */
export async function executeRun(input: RunInput, deps: RunnerDeps): Promise<RunOutcome> {
  try {
    return await executeSteps(input, deps);
  } catch (err) {
    if (isTargetGone(err)) return { kind: 'target_gone', reason: err.message };
    throw err;
  }
}

async function executeSteps(input: RunInput, deps: RunnerDeps): Promise<RunOutcome> {
  const { runId, signal } = input;
  const conversationId = input.toolContext.conversationId;
  // Other post failures are logged (by the poster) and the run goes on; a gone target is thrown to end the run.
  const awaitPost: AwaitPost = (ticket) => deps.posts.delivered(ticket, signal);
  const { principal } = input.toolContext;
  const viewer = principal?.userId ?? input.toolContext.userId;
  const privacy = runPrivacy(viewer, input.othersRead === true);
  // A resumed run that had taken in private material before it was parked is private still.
  if (
    input.resume &&
    (await deps.transcript.recent(conversationId, deps.historyRows ?? 400)).some(
      (r) => r.runId === runId && r.privateTo !== null,
    )
  )
    privacy.obtained();

  if (input.resume) {
    const offered = new Set(deps.tools.specsFor(input.toolContext).map((t) => t.name));
    const step = resumedStep(input.resume, deps.askTimeoutMs, input.approverId ?? null, (tool) => offered.has(tool));
    if (step.skipped)
      await deps.transcript.append({
        conversationId,
        runId,
        role: 'tool',
        content: JSON.stringify(step.skipped.result),
        toolCallId: step.skipped.callId,
        privateTo: privacy.privateTo,
      });
    const resumed = await runToolCalls(
      {
        runId,
        calls: step.calls,
        context: input.toolContext,
        signal,
        awaitPost,
        approverId: input.approverId ?? null,
        privacy,
        completeSummary: step.completeSummary,
        ...(step.approvedCallId ? { approvedCallId: step.approvedCallId } : {}),
      },
      deps,
    );
    if (resumed) return resumed;
  }

  const toolTokens = estimateToolTokens(deps.tools.specsFor(input.toolContext));
  let tokenScale = 1;
  let blankReplies = 0;
  const compaction = { failed: false };
  const memoryOf = { principal: principal ?? null, place: input.conversation };
  // Counted in the write that records each step (no write of its own before the model call); a step
  // cut short by a crash produced nothing and is not counted.
  let steps = input.stepsTaken;
  for (;;) {
    if (signal.aborted) return { kind: 'aborted' };
    const overBudget = await input.budget?.exceeded();
    if (overBudget) return { kind: 'over_budget', stop: overBudget, runTokens: input.budget?.spent() ?? 0 };
    if (steps >= deps.maxSteps) return { kind: 'step_limit', steps: deps.maxSteps };

    const context = await assembleContext(
      {
        runId,
        conversationId,
        systemPrompt: input.systemPrompt,
        goal: input.goal,
        ...(input.goalImages ? { goalImages: input.goalImages } : {}),
        budgetTokens: deps.contextBudget,
        tokenScale,
        historyRows: deps.historyRows ?? 400,
        memoryOf,
        viewer,
        signal,
        ...(input.budget ? { budget: input.budget } : {}),
      },
      deps,
      compaction,
    );
    if (context.runIsPrivate) privacy.obtained();
    if (signal.aborted) return { kind: 'aborted' };
    deps.activity?.({ activity: 'thinking' });
    // The answer shows while the model writes it; the preview is finished by the outbox when it delivers the recorded answer.
    // An answer held for its owner shows nowhere in the thread, not even as a preview.
    const preview = createAnswerPreview(privacy.holdsPosts ? undefined : deps.openPreview);
    let response;
    const offered = deps.tools.specsFor(input.toolContext);
    try {
      response = await deps.llm.complete({
        messages: context.messages,
        tools: offered,
        signal,
        onText: preview.onText,
        runId,
        ...(input.model ? { model: input.model } : {}),
      });
    } catch (err) {
      await preview.stop(deps.shuttingDown?.() ? 'discard' : 'stopped');
      // A request stopped mid-answer was still spent: charged with the usage it carries (estimated when none came).
      if (err instanceof StoppedRequestError)
        await input.budget
          ?.record(stoppedRequestCharge(err, { messages: context.messages, tools: offered }))
          .catch((e: unknown) => deps.logger.warn({ err: e, runId }, 'charging a stopped model request failed'));
      if (isAbort(err, signal)) return { kind: 'aborted' };
      if (err instanceof ModelError) return { kind: 'failed', reason: err.message, transient: err.transient };
      throw err;
    }
    const usage = response.usage;
    const text = response.text?.trim() ? response.text : null;
    const blank = text === null && response.toolCalls.length === 0;
    // Charged even when the run was stopped meanwhile (the tokens were spent); an answer's charge is part of its own write below.
    if (usage && (signal.aborted || blank)) await input.budget?.record(usage);
    if (signal.aborted) {
      await preview.stop(deps.shuttingDown?.() ? 'discard' : 'stopped');
      return { kind: 'aborted' };
    }
    tokenScale = calibrateTokenScale(tokenScale, context.estimatedTokens + toolTokens, usage);

    if (blank) {
      // A blank reply answers nobody: ask once more, then give up visibly rather than "complete" in silence.
      steps++;
      if (++blankReplies >= 2)
        return { kind: 'failed', reason: 'the model sent an empty answer twice', transient: false };
      deps.logger.warn({ runId }, 'the model sent an empty answer; asking again');
      continue;
    }
    // The answer text, its transcript row, its usage and the step count are one write: a crash cannot post it twice or lose it.
    let ticket;
    try {
      ({ steps, ticket } = await writeAnswerStep(deps.posts, {
        conversationId,
        runId,
        text,
        toolCalls: response.toolCalls,
        usage,
        budget: input.budget,
        privacy,
        stream: preview.stream() ?? undefined,
      }));
    } catch (err) {
      // Not recorded (a failed write, or refused because another process owns the run now): its preview goes too.
      await preview.stop(deps.shuttingDown?.() ? 'discard' : 'stopped');
      throw err;
    }
    await awaitPost(ticket);
    // The task's result is shown to anyone (`/tasks`, list_tasks): never the text of a private answer.
    if (response.toolCalls.length === 0)
      return {
        kind: 'completed',
        summary: privacy.privateTo !== null && text !== null ? PRIVATE_RESULT_SUMMARY : text,
      };

    const stepOutcome = await runToolCalls(
      {
        runId,
        calls: response.toolCalls,
        context: input.toolContext,
        signal,
        awaitPost,
        approverId: input.approverId ?? null,
        privacy,
      },
      deps,
    );
    if (stepOutcome) return stepOutcome;
  }
}
