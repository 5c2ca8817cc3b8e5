import OpenAI from 'openai';
import { z } from 'zod';
import type { ImagePart, StoredToolCall } from '../records/stored-values.js';
import type { LlmResponse } from './llm-response.js';
import { completionChunkSchema, StreamAssembly, usageOf, usageSchema } from './stream-assembly.js';
import { ModelError, RunAbortedError } from '../errors.js';
import type { Logger } from '../logger.js';
import { createKeepAliveFetch } from '../net/keep-alive-fetch.js';
import { withRequestSignal } from './request-signal.js';
import { StoppedRequestError } from './stopped-request.js';
import { describeModelFailure, displayEndpoint, type ModelRequestFailure } from './model-failure.js';
import { frameToolResult } from './tool-result-frame.js';

/** A message in the model's context, independent of the SDK's types. */
export type LlmMessage =
  | { role: 'system'; content: string }
  /** `images` go to the model as image parts after the text (OpenAI's chat format), for vision models. */
  | { role: 'user'; content: string; images?: readonly ImagePart[] }
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
  /** Another model than the client's default (a channel's own model). */
  model?: string;
  /** Told each piece of answer text as it arrives, when the client streams; called with nothing otherwise. */
  onText?: (delta: string) => void;
  /** The run the request is made for: its `chat` span hangs under that run's span (traced-llm.ts). */
  runId?: string;
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
  /** `max_tokens` of every request: bounds how much one answer can post (and cost). */
  maxTokens?: number;
  /** Where every failed model request is logged, with its status and what to check. */
  logger?: Logger;
  /** Attempts after the first for transient failures (timeouts, 429, 5xx, connection errors). */
  retries?: number;
  /** Delay before retry n (0-based) when the server gives no Retry-After. */
  backoffMs?: (attempt: number) => number;
  /** Injected for tests; must reject with the signal's reason when aborted. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** STREAMING: ask with `stream: true` (usage included) and report text deltas as they come. */
  stream?: boolean;
}

const responseSchema = z.object({
  model: z.string().nullish().catch(null),
  choices: z
    .array(
      z.object({
        finish_reason: z.string().nullish().catch(null),
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
  usage: usageSchema,
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
      return { role: 'system', content: m.content };
    case 'user':
      if (!m.images || m.images.length === 0) return { role: 'user', content: m.content };
      return {
        role: 'user',
        content: [
          { type: 'text', text: m.content },
          ...m.images.map((i) => ({ type: 'image_url' as const, image_url: { url: i.url } })),
        ],
      };
    case 'tool':
      // Framed as data here, as it leaves: the transcript and the context's cuts keep the tool's own JSON.
      return { role: 'tool', tool_call_id: m.toolCallId, content: frameToolResult(m.content) };
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

/** What the SDK's error says happened, in the SDK-free terms model-failure.ts describes. */
function requestFailure(err: unknown): ModelRequestFailure {
  if (err instanceof OpenAI.APIConnectionTimeoutError) return { kind: 'timeout' };
  if (err instanceof OpenAI.APIConnectionError) return { kind: 'connection', error: err };
  if (err instanceof OpenAI.APIError) {
    return {
      kind: 'status',
      status: err.status ?? 0,
      body: err.error,
      text: err.message,
      retryAfter: err.headers?.get?.('retry-after') ?? null,
    };
  }
  return { kind: 'other', error: err };
}

/**
 * Creates the model client over the `openai` SDK. Retries transient failures with backoff
 * (honouring Retry-After) and passes the run's AbortSignal to the HTTP request, so stopping
 * a run really cancels the request in flight. With `stream` the same request is made with
 * `stream: true`: the text shows while the model writes, the answer handed back is the same.
 */
export function createOpenAiClient(options: OpenAiClientOptions): LlmClient {
  const sdk = new OpenAI({
    apiKey: options.apiKey ?? 'not-needed',
    ...(options.baseUrl ? { baseURL: options.baseUrl } : {}),
    maxRetries: 0,
    timeout: options.timeoutMs,
    fetch: createKeepAliveFetch(),
  });
  const retries = options.retries ?? 3;
  const backoff = options.backoffMs ?? ((n: number) => 1000 * 2 ** n);
  const sleep = options.sleep ?? abortableSleep;
  const endpointUrl = options.baseUrl ?? sdk.baseURL;
  const endpoint = displayEndpoint(endpointUrl);

  const unreadable = (model: string, what: string): ModelError => {
    const operatorHint = `the model endpoint ${endpoint} answered with an unexpected shape (${what}); check OPENAI_BASE_URL points at an OpenAI-compatible API`;
    options.logger?.error({ model }, operatorHint);
    return new ModelError('the model service sent an answer I could not read', false, { operatorHint });
  };

  /**
   * One streamed request: chunks are validated and assembled as they arrive, each text delta goes
   * to `onText` at once. `shown` is set once text was passed on: a failure after that is not
   * retried, or the text shown so far would be shown again.
   */
  const streamOnce = async (
    body: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming,
    request: LlmRequest,
    shown: { value: boolean },
  ): Promise<LlmResponse> => {
    const assembly = new StreamAssembly(body.model);
    let answering = false;
    /** A stop after the endpoint began answering: the tokens were spent, so the abort carries what to charge for them. */
    const stopped = (): RunAbortedError => {
      return answering ? new StoppedRequestError(assembly.result(), body.model) : new RunAbortedError();
    };
    try {
      await withRequestSignal(request.signal, async (signal) => {
        const stream = await sdk.chat.completions.create(
          { ...body, stream: true, stream_options: { include_usage: true } },
          { signal },
        );
        answering = true;
        for await (const raw of stream) {
          const chunk = completionChunkSchema.safeParse(raw);
          if (!chunk.success) throw unreadable(body.model, chunk.error.issues[0]?.message ?? 'a malformed chunk');
          const delta = assembly.add(chunk.data);
          if (delta !== '') {
            shown.value = true;
            request.onText?.(delta);
          }
        }
      });
    } catch (err) {
      if (request.signal.aborted || err instanceof OpenAI.APIUserAbortError) throw stopped();
      throw err;
    }
    // The SDK ends the iteration quietly when the request is aborted: a cut answer is not an answer.
    if (request.signal.aborted) throw stopped();
    return assembly.result();
  };

  return {
    async complete(request) {
      const { messages, tools, signal, model: requested } = request;
      const model = requested ?? options.model;
      const shown = { value: false };
      for (let attempt = 0; ; attempt++) {
        if (signal.aborted) throw new RunAbortedError();
        try {
          const body: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming = {
            model,
            messages: messages.map(toSdkMessage),
            ...(options.maxTokens !== undefined ? { max_tokens: options.maxTokens } : {}),
            ...(tools.length > 0
              ? {
                  tools: tools.map((t) => ({
                    type: 'function' as const,
                    function: { name: t.name, description: t.description, parameters: t.parameters },
                  })),
                }
              : {}),
          };
          if (options.stream) return await streamOnce(body, request, shown);
          const raw = await withRequestSignal(signal, (own) => sdk.chat.completions.create(body, { signal: own }));
          const parsed = responseSchema.safeParse(raw);
          if (!parsed.success) throw unreadable(model, parsed.error.issues[0]?.message ?? 'no choices');
          const message = parsed.data.choices[0]!.message;
          const usage = usageOf(parsed.data.usage, model);
          const finishReasons = parsed.data.choices.flatMap((c) => (c.finish_reason ? [c.finish_reason] : []));
          return {
            text: message.content ?? null,
            toolCalls: (message.tool_calls ?? []).map((c) => ({
              id: c.id,
              name: c.function.name,
              arguments: c.function.arguments,
            })),
            ...(usage ? { usage } : {}),
            ...(parsed.data.model ? { responseModel: parsed.data.model } : {}),
            ...(finishReasons.length > 0 ? { finishReasons } : {}),
          };
        } catch (err) {
          if (signal.aborted || err instanceof OpenAI.APIUserAbortError)
            throw err instanceof RunAbortedError ? err : new RunAbortedError();
          if (err instanceof ModelError) throw err;
          const c = describeModelFailure(requestFailure(err), {
            url: endpointUrl,
            apiKey: options.apiKey,
            model,
            timeoutMs: options.timeoutMs,
          });
          const last = !c.transient || attempt >= retries || shown.value;
          const operatorHint = attempt > 0 ? `${c.operatorHint} (after ${attempt + 1} attempts)` : c.operatorHint;
          options.logger?.[last ? 'error' : 'warn'](
            { status: c.status, attempt: attempt + 1, model, transient: c.transient },
            operatorHint,
          );
          if (last) throw new ModelError(c.userText, c.transient, { cause: err, operatorHint });
          await sleep(c.retryAfterMs ?? backoff(attempt), signal);
        }
      }
    },
  };
}
