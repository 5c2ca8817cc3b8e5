import type { LlmMessage, LlmTool } from './llm-client.js';
import { TOOL_RESULT_FRAME_LENGTH } from './tool-result-frame.js';

/** Characters per token the estimate assumes before the model's own `usage` corrects it. */
export const CHARS_PER_TOKEN = 4;

/** Tokens a message costs beyond its text (role, separators), as chat formats add them. */
const MESSAGE_OVERHEAD_TOKENS = 4;

/**
 * Rough token count of one piece of text (4 characters a token, plus a message's framing):
 * cheap enough to run over thousands of transcript rows on every step; `tokenScale` in the
 * context builder corrects it from the model's reported usage.
 */
export function estimateTokens(text: string | null | undefined): number {
  return tokensOfLength(text?.length ?? 0);
}

function tokensOfLength(characters: number): number {
  return Math.ceil(characters / CHARS_PER_TOKEN) + MESSAGE_OVERHEAD_TOKENS;
}

/**
 * What one image part is counted as, whatever its size: OpenAI bills a high-detail image by tiles
 * (85 + 170 per 512 px tile, so about 765 for a 1024 px square); a fixed figure near that keeps the
 * estimate cheap (no decoding), and `tokenScale` corrects it from the model's reported usage.
 */
export const IMAGE_TOKENS = 800;

/** Estimated tokens of one message, its tool calls' names and arguments, its images and a tool result's frame included. */
export function estimateMessageTokens(message: LlmMessage): number {
  let tokens = estimateTokens(message.content);
  if (message.role === 'tool') tokens += Math.ceil(TOOL_RESULT_FRAME_LENGTH / CHARS_PER_TOKEN);
  if (message.role === 'user' && message.images) tokens += message.images.length * IMAGE_TOKENS;
  if (message.role === 'assistant' && message.toolCalls) {
    for (const call of message.toolCalls)
      tokens +=
        Math.ceil((call.id.length + call.name.length + call.arguments.length) / CHARS_PER_TOKEN) +
        MESSAGE_OVERHEAD_TOKENS;
  }
  return tokens;
}

/** Estimated tokens of a whole request's messages. */
export function estimateRequestTokens(messages: readonly LlmMessage[]): number {
  let tokens = 0;
  for (const m of messages) tokens += estimateMessageTokens(m);
  return tokens;
}

const specLengths = new WeakMap<object, number>();

/**
 * Estimated tokens of the tool definitions sent with every request: what `estimateTokens` says of
 * their JSON, with each definition's JSON length remembered (the registry hands out the same
 * objects run after run), so a run does not serialise 16 definitions only to count them.
 */
export function estimateToolTokens(specs: readonly LlmTool[]): number {
  let length = specs.length === 0 ? 2 : 1 + specs.length;
  for (const spec of specs) {
    let n = specLengths.get(spec);
    if (n === undefined) {
      n = JSON.stringify(spec).length;
      specLengths.set(spec, n);
    }
    length += n;
  }
  return tokensOfLength(length);
}
