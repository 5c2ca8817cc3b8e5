import type { LlmUsage } from './llm-response.js';

/** The estimate is never trusted to be more than this far below the model's real count. */
const MAX_SCALE = 8;

/**
 * The factor by which the character-based estimate undercounts this model's tokens, from the
 * last request of the run: its `usage.prompt_tokens` over what was estimated for it. A model
 * whose tokens are denser than 4 characters (code, JSON, many non-Latin scripts) then gets a
 * proportionally smaller context and still fits. Never below 1: a sparse tokenizer does not
 * let the context grow past the budget as estimated, so an endpoint that reports odd or
 * missing usage can only make the context smaller, never too big.
 */
export function calibrateTokenScale(previous: number, estimatedTokens: number, usage: LlmUsage | undefined): number {
  if (!usage || !Number.isFinite(usage.promptTokens) || usage.promptTokens <= 0 || estimatedTokens <= 0)
    return previous;
  return Math.min(MAX_SCALE, Math.max(1, usage.promptTokens / estimatedTokens));
}
