import { answerActionId } from '../chat/action-id.js';
import type { ChatAdapter } from '../chat/chat-adapter.js';
import type { ConversationRef } from '../chat/conversation-ref.js';
import type { TranscriptStore } from '../conversations/transcript-store.js';
import type { PendingQuestion, StoredToolCall } from '../db/schema.js';
import { ModelError, RunAbortedError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { RunStore } from '../runs/run-store.js';
import { buildContext } from './context-builder.js';
import type { LlmClient } from './llm-client.js';
import { calibrateTokenScale } from './token-calibration.js';
import { estimateTokens } from './token-estimate.js';
import type { ToolRegistry } from './tools/tool-registry.js';
import type { ToolContext, ToolEffect } from './tools/tool.js';

/** How a run's loop ended; the coordinator turns it into statuses and notes. */
export type RunOutcome =
  | { kind: 'completed'; summary: string | null }
  | { kind: 'waiting'; question: PendingQuestion }
  | { kind: 'aborted' }
  | { kind: 'step_limit'; steps: number }
  | { kind: 'failed'; reason: string; transient: boolean };

export interface RunnerDeps {
  llm: LlmClient;
  tools: ToolRegistry;
  transcript: TranscriptStore;
  runs: RunStore;
  logger: Logger;
  maxSteps: number;
  contextBudget: number;
  /** How many transcript rows to read before trimming to the budget. */
  historyRows?: number;
  askTimeoutMs: number;
  now(): number;
}

export interface RunInput {
  runId: string;
  conversation: ConversationRef;
  adapter: ChatAdapter;
  toolContext: ToolContext;
  systemPrompt: string;
  /** The run's goal (`goalMessage(task)`), sent with every request whatever the budget; null: the newest user message. */
  goal: string | null;
  signal: AbortSignal;
}

function isAbort(err: unknown, signal: AbortSignal): boolean {
  return signal.aborted || err instanceof RunAbortedError;
}

/**
 * The agent loop for one run: context → model → post text → tools → repeat, until a plain
 * answer, task_complete, ask_user, the step limit, a failure, or an abort. Every step is
 * persisted before the next begins, so a restart can pick the run up from the transcript.
 */
export async function executeRun(input: RunInput, deps: RunnerDeps): Promise<RunOutcome> {
  const { runId, conversation, adapter, signal } = input;
  const conversationId = input.toolContext.conversationId;
  const post = async (text: string, extra: { mentionUserId?: string; buttons?: { actionId: string; label: string }[] } = {}) => {
    if (signal.aborted) return null;
    try {
      return await adapter.postMessage(conversation, { text, ...extra });
    } catch (err) {
      deps.logger.error({ err, runId, conversationId }, 'posting to the platform failed');
      return null;
    }
  };

  const toolTokens = estimateTokens(JSON.stringify(deps.tools.specs));
  let tokenScale = 1;
  for (;;) {
    if (signal.aborted) return { kind: 'aborted' };
    const steps = deps.runs.countStep(runId);
    if (steps > deps.maxSteps) return { kind: 'step_limit', steps: deps.maxSteps };

    const history = deps.transcript.recent(conversationId, deps.historyRows ?? 400);
    const context = buildContext({ systemPrompt: input.systemPrompt, goal: input.goal, rows: history, budgetTokens: deps.contextBudget, tokenScale });
    let response;
    try {
      response = await deps.llm.complete({ messages: context.messages, tools: deps.tools.specs, signal });
    } catch (err) {
      if (isAbort(err, signal)) return { kind: 'aborted' };
      if (err instanceof ModelError) return { kind: 'failed', reason: err.message, transient: err.transient };
      throw err;
    }
    if (signal.aborted) return { kind: 'aborted' };
    tokenScale = calibrateTokenScale(tokenScale, context.estimatedTokens + toolTokens, response.usage);

    const text = response.text?.trim() ? response.text : null;
    deps.transcript.append({ conversationId, runId, role: 'assistant', content: text, toolCalls: response.toolCalls });
    if (text) await post(text);
    if (response.toolCalls.length === 0) return { kind: 'completed', summary: text };

    let ask: { call: StoredToolCall; effect: Extract<ToolEffect, { kind: 'ask' }> } | null = null;
    let complete: string | null = null;
    for (const call of response.toolCalls) {
      if (signal.aborted) return { kind: 'aborted' };
      let outcome = await deps.tools.execute(call, input.toolContext);
      if (outcome.effect?.kind === 'ask' && ask !== null) {
        outcome = { result: { ok: false, error: 'Only one question at a time: ask it after the first one is answered.' } };
      }
      if (outcome.effect?.kind === 'ask') {
        ask = { call, effect: outcome.effect };
        continue;
      }
      if (outcome.effect?.kind === 'update') await post(outcome.effect.text);
      if (outcome.effect?.kind === 'complete') complete = outcome.effect.summary;
      deps.transcript.append({ conversationId, runId, role: 'tool', content: JSON.stringify(outcome.result), toolCallId: call.id });
    }
    if (signal.aborted) return { kind: 'aborted' };
    if (complete !== null) return { kind: 'completed', summary: complete };
    if (ask) {
      const userId = input.toolContext.userId;
      const { question, options } = ask.effect;
      const pending: PendingQuestion = { question, options, toolCallId: ask.call.id, askedAt: deps.now(), messageId: null, userId };
      // Park before posting: an answer typed the moment the question appears must find the run waiting.
      if (!deps.runs.park(runId, pending, deps.now() + deps.askTimeoutMs)) return { kind: 'aborted' };
      const buttons = options.map((label, i) => ({ actionId: answerActionId(runId, i), label }));
      const posted = await post(question, { ...(userId ? { mentionUserId: userId } : {}), ...(buttons.length > 0 ? { buttons } : {}) });
      if (posted) deps.runs.setQuestionMessage(runId, posted.id);
      return { kind: 'waiting', question: pending };
    }
  }
}
