import type { StoredToolCall } from '../records/stored-values.js';

/** Tokens the endpoint says a request used (OpenAI's `usage`); absent when it does not report them. */
export interface LlmUsage {
  promptTokens: number;
  completionTokens: number;
}

/** What the model answered to one request: text, tool calls, or both. */
export interface LlmResponse {
  text: string | null;
  toolCalls: StoredToolCall[];
  usage?: LlmUsage;
}
