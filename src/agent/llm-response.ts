import type { StoredToolCall } from '../records/stored-values.js';

/** Tokens the endpoint says a request used (OpenAI's `usage`); absent when it does not report them. */
export interface LlmUsage {
  promptTokens: number;
  completionTokens: number;
  /** The part of the prompt served from the endpoint's cache (`usage.prompt_tokens_details.cached_tokens`), when it says. */
  cachedTokens?: number;
  /** The model the request asked for: what `pricing` is keyed by. */
  model?: string;
}

/** What the model answered to one request: text, tool calls, or both. */
export interface LlmResponse {
  text: string | null;
  toolCalls: StoredToolCall[];
  usage?: LlmUsage;
  /** The model that answered, as the endpoint names it (often a dated version of the one asked). */
  responseModel?: string;
  /** Why each choice ended (`stop`, `tool_calls`, `length`…), as the endpoint reported it. */
  finishReasons?: string[];
}
