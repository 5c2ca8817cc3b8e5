import { z } from 'zod';
import type { StoredToolCall } from '../records/stored-values.js';
import type { LlmResponse, LlmUsage } from './llm-response.js';

/** OpenAI's `usage`, with the cached part of the prompt when the endpoint reports it; unreadable usage counts as none. */
export const usageSchema = z
  .object({
    prompt_tokens: z.number().nonnegative(),
    completion_tokens: z.number().nonnegative(),
    prompt_tokens_details: z.object({ cached_tokens: z.number().nonnegative().nullish() }).nullish().catch(null),
  })
  .nullish()
  .catch(null);

/** The usage as the loop keeps it: tokens, the cached part when known, and the model asked. */
export function usageOf(raw: z.infer<typeof usageSchema>, model: string): LlmUsage | undefined {
  if (!raw) return undefined;
  const cached = raw.prompt_tokens_details?.cached_tokens;
  return {
    promptTokens: raw.prompt_tokens,
    completionTokens: raw.completion_tokens,
    ...(typeof cached === 'number' ? { cachedTokens: cached } : {}),
    model,
  };
}

/**
 * One `chat.completion.chunk` as far as Errand reads it. Everything is optional because endpoints
 * differ: the role chunk has no content, the usage chunk has no choices, some servers send `null`s.
 */
export const completionChunkSchema = z.object({
  model: z.string().nullish().catch(null),
  choices: z
    .array(
      z.object({
        finish_reason: z.string().nullish().catch(null),
        delta: z
          .object({
            content: z.string().nullish(),
            tool_calls: z
              .array(
                z.object({
                  index: z.number().int().nonnegative(),
                  id: z.string().nullish(),
                  function: z.object({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
                }),
              )
              .nullish(),
          })
          .nullish(),
      }),
    )
    .nullish(),
  usage: usageSchema,
});

export type CompletionChunk = z.infer<typeof completionChunkSchema>;

interface PartialCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * Builds the answer a streamed request stands for, chunk by chunk: text deltas concatenated, each
 * tool call gathered by its `index` (id and name from whichever fragment carries them, argument
 * fragments concatenated as they come, even split mid-JSON), usage from the final chunk. The result
 * is what the same request answers without streaming, so the rest of the loop cannot tell them apart.
 */
export class StreamAssembly {
  private text = '';
  private sawText = false;
  private readonly calls = new Map<number, PartialCall>();
  private usage: LlmResponse['usage'];
  private responseModel: string | undefined;
  private readonly finishReasons: string[] = [];

  /** `model` is the model asked: the usage is recorded under it. */
  constructor(private readonly model: string) {}

  /** Adds one chunk; returns the text delta it carried ('' when none), for showing it at once. */
  add(chunk: CompletionChunk): string {
    if (chunk.usage) this.usage = usageOf(chunk.usage, this.model);
    if (chunk.model) this.responseModel = chunk.model;
    let delta = '';
    for (const choice of chunk.choices ?? []) {
      if (choice.finish_reason) this.finishReasons.push(choice.finish_reason);
      const d = choice.delta;
      if (!d) continue;
      if (typeof d.content === 'string') {
        this.sawText = true;
        delta += d.content;
      }
      for (const fragment of d.tool_calls ?? []) {
        const call = this.calls.get(fragment.index) ?? { id: '', name: '', arguments: '' };
        if (fragment.id) call.id = fragment.id;
        if (fragment.function?.name) call.name += fragment.function.name;
        if (fragment.function?.arguments) call.arguments += fragment.function.arguments;
        this.calls.set(fragment.index, call);
      }
    }
    this.text += delta;
    return delta;
  }

  /** Whether any text arrived yet (a failure after that cannot be retried unseen). */
  get started(): boolean {
    return this.text.length > 0;
  }

  /** The assembled answer; tool calls in index order. */
  result(): LlmResponse {
    const toolCalls: StoredToolCall[] = [...this.calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, c]) => ({ id: c.id, name: c.name, arguments: c.arguments }));
    return {
      text: this.sawText && this.text !== '' ? this.text : null,
      toolCalls,
      ...(this.usage ? { usage: this.usage } : {}),
      ...(this.responseModel ? { responseModel: this.responseModel } : {}),
      ...(this.finishReasons.length > 0 ? { finishReasons: this.finishReasons } : {}),
    };
  }
}
