import type { Tracing } from '../telemetry/tracing.js';
import type { LlmClient, LlmMessage } from './llm-client.js';
import type { LlmResponse } from './llm-response.js';

export interface TracedLlmOptions {
  /** The model a request without its own asks for (OPENAI_MODEL). */
  readonly defaultModel: string;
  /** STREAMING: requests are streamed (time to first token is then measured). */
  readonly streamed: boolean;
  /** OPENAI_BASE_URL: its host is the spans' `server.address` (none for OpenAI's own endpoint). */
  readonly baseUrl?: string | undefined;
  /** Monotonic milliseconds, injected for tests. */
  readonly elapsedMs?: () => number;
  /** The `traceparent` of a run executing here (RunTracer.parentOf): a request made for it hangs under its span. */
  readonly parentOf?: (runId: string) => string | null;
}

/** A message as the GenAI conventions' `gen_ai.input.messages` write it (only with content capture on). */
function partsOf(m: LlmMessage): Record<string, unknown> {
  if (m.role === 'tool')
    return { role: 'tool', parts: [{ type: 'tool_call_response', id: m.toolCallId, response: m.content }] };
  if (m.role === 'assistant') {
    const calls = (m.toolCalls ?? []).map((c) => ({
      type: 'tool_call',
      id: c.id,
      name: c.name,
      arguments: c.arguments,
    }));
    return { role: 'assistant', parts: [...(m.content ? [{ type: 'text', content: m.content }] : []), ...calls] };
  }
  return { role: m.role, parts: [{ type: 'text', content: m.content }] };
}

/** The host of an endpoint URL, or undefined when there is none (or it does not parse). */
function hostOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
}

function outputOf(r: LlmResponse): string {
  const calls = r.toolCalls.map((c) => ({ type: 'tool_call', id: c.id, name: c.name, arguments: c.arguments }));
  return JSON.stringify([
    {
      role: 'assistant',
      parts: [...(r.text ? [{ type: 'text', content: r.text }] : []), ...calls],
      finish_reason: r.finishReasons?.[0] ?? null,
    },
  ]);
}

/**
 * Wraps the model client so each request is a `chat <model>` span (OpenTelemetry GenAI conventions): the model
 * asked and the one that answered, tokens (cached input apart), finish reasons, streamed or not and the time
 * to the first text. Messages go on the span only with content capture on. With tracing off, the client as is.
 */
export function traceLlm(llm: LlmClient, tracing: Tracing, options: TracedLlmOptions): LlmClient {
  if (!tracing.enabled) return llm;
  const elapsed = options.elapsedMs ?? (() => performance.now());
  const serverAddress = hostOf(options.baseUrl);
  return {
    complete(request) {
      const model = request.model ?? options.defaultModel;
      const attributes = {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': model,
        'gen_ai.request.stream': options.streamed,
        'server.address': serverAddress,
        ...(tracing.captureContent ? { 'gen_ai.input.messages': JSON.stringify(request.messages.map(partsOf)) } : {}),
      };
      // Under its run's span, found by the run (a request made inside a tool call: under the tool's, the active span).
      // Nothing inside looks the span up, so it is not made the active one (no async context for the SDK's promises).
      const parent = request.runId === undefined ? undefined : (options.parentOf?.(request.runId) ?? undefined);
      return tracing.span(
        `chat ${model}`,
        { kind: 'client', attributes, active: false, ...(parent ? { parent } : {}) },
        async (span) => {
          const started = elapsed();
          let firstText: number | null = null;
          const onText = (delta: string) => {
            firstText ??= elapsed();
            request.onText?.(delta);
          };
          const response = await llm.complete({ ...request, onText });
          const usage = response.usage;
          span.set({
            'gen_ai.response.model': response.responseModel,
            'gen_ai.usage.input_tokens': usage?.promptTokens,
            'gen_ai.usage.output_tokens': usage?.completionTokens,
            'gen_ai.usage.cache_read.input_tokens': usage?.cachedTokens,
            'gen_ai.response.finish_reasons': response.finishReasons,
            'gen_ai.response.time_to_first_chunk': firstText === null ? undefined : (firstText - started) / 1000,
            ...(tracing.captureContent ? { 'gen_ai.output.messages': outputOf(response) } : {}),
          });
          return response;
        },
      );
    },
  };
}
