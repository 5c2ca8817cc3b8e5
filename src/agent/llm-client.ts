import OpenAI from 'openai';
import { z } from 'zod';
import type { StoredToolCall } from '../db/schema.js';
import { ModelError, RunAbortedError } from '../errors.js';

/** A message in the model's context, independent of the SDK's types. */
export type LlmMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; toolCalls?: StoredToolCall[] }
  | { role: 'tool'; toolCallId: string; content: string };

/** A tool offered to the model; `parameters` is JSON Schema. */
export interface LlmTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface LlmRequest {
  messages: LlmMessage[];
  tools: LlmTool[];
  signal: AbortSignal;
}

/** Tokens the endpoint says a request used (OpenAI's `usage`); absent when it does not report them. */
export interface LlmUsage {
  promptTokens: number;
  completionTokens: number;
}

export interface LlmResponse {
  text: string | null;
  toolCalls: StoredToolCall[];
  usage?: LlmUsage;
}

/** The model as the agent loop sees it. */
export interface LlmClient {
  complete(request: LlmRequest): Promise<LlmResponse>;
}

export interface OpenAiClientOptions {
  apiKey: string | undefined;
  baseUrl: string | undefined;
  model: string;
  timeoutMs: number;
  /** Attempts after the first for transient failures (timeouts, 429, 5xx, connection errors). */
  retries?: number;
  /** Delay before retry n (0-based) when the server gives no Retry-After. */
  backoffMs?: (attempt: number) => number;
  /** Injected for tests; must reject with the signal's reason when aborted. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

const responseSchema = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.string().nullable().optional(),
          tool_calls: z
            .array(z.object({ id: z.string(), function: z.object({ name: z.string(), arguments: z.string() }) }))
            .nullable()
            .optional(),
        }),
      }),
    )
    .min(1),
  usage: z.object({ prompt_tokens: z.number().nonnegative(), completion_tokens: z.number().nonnegative() }).nullish().catch(null),
});

/** Waits, giving up early when the signal aborts. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new RunAbortedError());
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(new RunAbortedError());
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function toSdkMessage(m: LlmMessage): OpenAI.Chat.ChatCompletionMessageParam {
  switch (m.role) {
    case 'system':
    case 'user':
      return { role: m.role, content: m.content };
    case 'tool':
      return { role: 'tool', tool_call_id: m.toolCallId, content: m.content };
    case 'assistant':
      return {
        role: 'assistant',
        content: m.content,
        ...(m.toolCalls && m.toolCalls.length > 0
          ? {
              tool_calls: m.toolCalls.map((c) => ({
                id: c.id,
                type: 'function' as const,
                function: { name: c.name, arguments: c.arguments },
              })),
            }
          : {}),
      };
  }
}

interface Classified {
  transient: boolean;
  message: string;
  retryAfterMs: number | null;
}

function classify(err: unknown, model: string): Classified {
  if (err instanceof OpenAI.APIConnectionTimeoutError) return { transient: true, message: 'the model request timed out', retryAfterMs: null };
  if (err instanceof OpenAI.APIConnectionError) return { transient: true, message: 'could not connect to the model endpoint', retryAfterMs: null };
  if (err instanceof OpenAI.APIError) {
    const status = err.status ?? 0;
    const header = err.headers?.get?.('retry-after') ?? null;
    const retryAfterMs = header !== null && Number.isFinite(Number(header)) ? Number(header) * 1000 : null;
    if (status === 401 || status === 403) return { transient: false, message: `the model endpoint rejected the API key (HTTP ${status}); check OPENAI_API_KEY`, retryAfterMs };
    if (status === 404) return { transient: false, message: `the model endpoint does not know model "${model}" (HTTP 404); check OPENAI_MODEL`, retryAfterMs };
    if (status === 429) return { transient: true, message: 'the model endpoint is rate limiting (HTTP 429)', retryAfterMs };
    if (status === 408 || status === 409 || status >= 500) return { transient: true, message: `the model endpoint failed (HTTP ${status})`, retryAfterMs };
    return { transient: false, message: `the model endpoint refused the request (HTTP ${status}: ${err.message.slice(0, 200)})`, retryAfterMs };
  }
  return { transient: false, message: err instanceof Error ? err.message : String(err), retryAfterMs: null };
}

/**
 * Creates the model client over the `openai` SDK. Retries transient failures with backoff
 * (honouring Retry-After) and passes the run's AbortSignal to the HTTP request, so stopping
 * a run really cancels the request in flight.
 */
export function createOpenAiClient(options: OpenAiClientOptions): LlmClient {
  const sdk = new OpenAI({
    apiKey: options.apiKey ?? 'not-needed',
    ...(options.baseUrl ? { baseURL: options.baseUrl } : {}),
    maxRetries: 0,
    timeout: options.timeoutMs,
  });
  const retries = options.retries ?? 3;
  const backoff = options.backoffMs ?? ((n: number) => 1000 * 2 ** n);
  const sleep = options.sleep ?? abortableSleep;

  return {
    async complete({ messages, tools, signal }) {
      for (let attempt = 0; ; attempt++) {
        if (signal.aborted) throw new RunAbortedError();
        try {
          const raw = await sdk.chat.completions.create(
            {
              model: options.model,
              messages: messages.map(toSdkMessage),
              ...(tools.length > 0
                ? { tools: tools.map((t) => ({ type: 'function' as const, function: { name: t.name, description: t.description, parameters: t.parameters } })) }
                : {}),
            },
            { signal },
          );
          const parsed = responseSchema.safeParse(raw);
          if (!parsed.success) throw new ModelError('the model endpoint answered with an unexpected shape', false);
          const message = parsed.data.choices[0]!.message;
          const usage = parsed.data.usage;
          return {
            text: message.content ?? null,
            toolCalls: (message.tool_calls ?? []).map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments })),
            ...(usage ? { usage: { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens } } : {}),
          };
        } catch (err) {
          if (signal.aborted || err instanceof OpenAI.APIUserAbortError) throw new RunAbortedError();
          if (err instanceof ModelError) throw err;
          const c = classify(err, options.model);
          if (!c.transient || attempt >= retries) {
            throw new ModelError(attempt > 0 ? `${c.message} (after ${attempt + 1} attempts)` : c.message, c.transient, { cause: err });
          }
          await sleep(c.retryAfterMs ?? backoff(attempt), signal);
        }
      }
    },
  };
}
