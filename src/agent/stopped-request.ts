import { RunAbortedError } from '../errors.js';
import type { LlmMessage, LlmTool } from './llm-client.js';
import type { LlmResponse, LlmUsage } from './llm-response.js';
import { CHARS_PER_TOKEN, estimateRequestTokens, estimateTokens, estimateToolTokens } from './token-estimate.js';

/**
 * A streamed request stopped after the endpoint had begun answering: the endpoint spent (and bills) the tokens,
 * but the `usage` it sends in the last chunk never arrived. Carries what the request is charged instead — the
 * usage it reported when it did arrive, else an estimate — so a run stopped just before each answer ends still
 * uses up its budgets (DESIGN.md "Who may use it, and what it may spend").
 */
export class StoppedRequestError extends RunAbortedError {
  constructor(
    readonly usage: LlmUsage,
    /** True when `usage` is Errand's estimate (the endpoint's own never arrived). */
    readonly estimated: boolean,
  ) {
    super();
  }
}

/**
 * What a stopped request is charged when its usage never arrived: the prompt estimated from the request (messages
 * and tool definitions), the completion from the text and tool-call fragments received before the stop. The
 * token estimator's rough count (4 characters a token), never zero for a prompt the endpoint read.
 */
export function estimatedUsage(request: { messages: readonly LlmMessage[]; tools: readonly LlmTool[] }, received: Pick<LlmResponse, 'text' | 'toolCalls'>, model: string): LlmUsage {
  const calls = received.toolCalls.reduce((n, c) => n + c.id.length + c.name.length + c.arguments.length, 0);
  const completion = (received.text ? estimateTokens(received.text) : 0) + Math.ceil(calls / CHARS_PER_TOKEN);
  return { promptTokens: estimateRequestTokens(request.messages) + estimateToolTokens(request.tools), completionTokens: completion, model };
}
