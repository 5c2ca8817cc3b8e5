import type { LlmMessage, LlmTool } from './llm-client.js';
import type { LlmUsage } from './llm-response.js';
import type { StoppedRequestError } from './stopped-request.js';
import { CHARS_PER_TOKEN, estimateRequestTokens, estimateTokens, estimateToolTokens } from './token-estimate.js';

/**
 * What a stopped request is charged: the usage the endpoint reported when its last chunk arrived, else an estimate
 * — the prompt from the request (messages and tool definitions), the completion from the text and tool-call
 * fragments received before the stop (the token estimator's 4 characters a token).
 */
export function stoppedRequestCharge(
  stopped: StoppedRequestError,
  request: { messages: readonly LlmMessage[]; tools: readonly LlmTool[] },
): LlmUsage {
  const { received, model } = stopped;
  if (received.usage) return received.usage;
  const calls = received.toolCalls.reduce((n, c) => n + c.id.length + c.name.length + c.arguments.length, 0);
  const completion = (received.text ? estimateTokens(received.text) : 0) + Math.ceil(calls / CHARS_PER_TOKEN);
  return {
    promptTokens: estimateRequestTokens(request.messages) + estimateToolTokens(request.tools),
    completionTokens: completion,
    model,
  };
}
