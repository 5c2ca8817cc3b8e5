import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted model step: assistant text, tool calls, or an HTTP error. */
export type FakeStep =
  | { text: string; toolCalls?: FakeToolCall[]; gate?: Promise<void> }
  | { toolCalls: FakeToolCall[]; text?: string; gate?: Promise<void> }
  /** An error status; the body is OpenAI's `{ error: { message } }`, or `rawBody` as given (a proxy's page, plain text). */
  | { status: number; error?: string; retryAfterSeconds?: number; rawBody?: string }
  | { hang: true };

export interface FakeToolCall {
  name: string;
  arguments: Record<string, unknown> | string;
  id?: string;
}

/** What the fake received for one chat completion. */
export interface RecordedRequest {
  model: string;
  messages: { role: string; content?: unknown; tool_calls?: unknown; tool_call_id?: string }[];
  tools: { function: { name: string } }[];
  /** The request's `max_tokens`, when it set one. */
  maxTokens: number | null;
  receivedAt: number;
  /** Resolves when the client closed the connection before the answer (aborted). */
  aborted: boolean;
  /** Why the fake refused the request with HTTP 400, as the real API would; null when it was valid. */
  problem: string | null;
  /** The request asked for `stream: true`. */
  stream: boolean;
  /** The request asked for `stream_options: { include_usage: true }`. */
  includeUsage: boolean;
  /** When a streamed answer's first content delta was written (the model's first token); null before that or when not streamed. */
  firstTokenAt: number | null;
  /** How many SSE chunks were written for a streamed answer. */
  chunksSent: number;
}

/** The text of the last person's message the model was sent. */
export function lastUserText(request: RecordedRequest): string {
  const user = [...request.messages].reverse().find((m) => m.role === 'user');
  return typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content ?? '');
}

/** What `usage` reports for a request. */
export type UsageFn = (request: RecordedRequest) => FakeUsage;

/** Tokens a fake answer reports; `cachedTokens` goes out as `prompt_tokens_details.cached_tokens`, as OpenAI sends it. */
export interface FakeUsage {
  promptTokens: number;
  completionTokens: number;
  cachedTokens?: number;
}

/** OpenAI's `usage` object for a fake answer. */
function usageBody(usage: FakeUsage): Record<string, unknown> {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
    ...(usage.cachedTokens !== undefined
      ? { prompt_tokens_details: { cached_tokens: usage.cachedTokens, audio_tokens: 0 } }
      : {}),
  };
}

export type StepFn = (request: RecordedRequest) => FakeStep;

/**
 * A local OpenAI-compatible `/v1/chat/completions` server for the real `openai` SDK.
 * Steps are scripted in order (`reply`), or computed (`respondWith`); when the script is empty
 * it answers with the fallback (a plain "ok" text by default). Requests are validated like the
 * real API: an invalid message sequence gets HTTP 400 (and `problem` on its record).
 */
export interface FakeOpenAI {
  readonly baseUrl: string;
  readonly requests: RecordedRequest[];
  /** Queues steps, answered in order. */
  reply(...steps: FakeStep[]): void;
  /** Answers every request not covered by the queue. */
  respondWith(fn: StepFn): void;
  /** Sets what `usage` reports (default: 1 prompt and 1 completion token). */
  usageWith(fn: UsageFn): void;
  /** The model ids `GET /v1/models` lists (default: gpt-4o-mini). */
  models: string[];
  /** Requests currently held open by `{ hang: true }`. */
  hanging(): number;
  /**
   * How streamed answers are cut and paced: `chunkChars` characters of text (and of tool-call
   * arguments) per chunk (default 8), `chunkDelayMs` between chunks (default 0: as fast as the socket takes them).
   */
  streamPace(pace: { chunkChars?: number; chunkDelayMs?: number }): void;
  close(): Promise<void>;
}

let callCounter = 0;

type Message = RecordedRequest['messages'][number];

function toolCallIds(m: Message): string[] | null {
  if (!Array.isArray(m.tool_calls) || m.tool_calls.length === 0) return null;
  return m.tool_calls.map((c: unknown) => String((c as { id?: unknown }).id));
}

/**
 * A user message's content parts as OpenAI checks them: `text` parts with a string, `image_url`
 * parts whose URL is http(s) or a base64 data URL of a PNG, JPEG, GIF or WebP image.
 */
function partsProblem(parts: unknown[]): string | null {
  if (parts.length === 0) return "Invalid 'content': empty array. Expected an array with minimum length 1.";
  for (const [i, raw] of parts.entries()) {
    const part = raw as { type?: unknown; text?: unknown; image_url?: { url?: unknown } };
    if (part.type === 'text') {
      if (typeof part.text !== 'string') return `Invalid type for 'content[${i}].text': expected a string.`;
    } else if (part.type === 'image_url') {
      const url = part.image_url?.url;
      if (typeof url !== 'string') return `Missing required parameter: 'content[${i}].image_url.url'.`;
      if (!/^https?:\/\//.test(url) && !/^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/]+=*$/.test(url)) {
        return `Invalid image_url in 'content[${i}]': expected an http(s) URL or a base64 data URL of a PNG, JPEG, GIF or WebP image.`;
      }
    } else {
      return `Invalid value: '${String(part.type)}'. Supported values are: 'text' and 'image_url'.`;
    }
  }
  return null;
}

/**
 * Checks a request's messages the way OpenAI-compatible endpoints do (and the stricter ones:
 * some chat templates need a user message first), returning the 400 message or null.
 */
export function requestProblem(messages: unknown): string | null {
  if (!Array.isArray(messages) || messages.length === 0) return "[] is too short - 'messages'";
  const list = messages as Message[];
  let first = 0;
  while (first < list.length && list[first]!.role === 'system') first++;
  if (first === list.length) return 'The request must contain a user message after the system messages.';
  if (list[first]!.role !== 'user')
    return `The first message after the system messages must have role 'user', got '${list[first]!.role}'.`;
  let open: Set<string> | null = null;
  for (const m of list) {
    if (m.role === 'tool') {
      if (!open || m.tool_call_id === undefined || !open.delete(m.tool_call_id)) {
        return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";
      }
      continue;
    }
    if (open && open.size > 0) {
      return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open].join(', ')}`;
    }
    open = null;
    if (m.role === 'assistant') {
      const ids = toolCallIds(m);
      if (ids) {
        open = new Set(ids);
        if (open.size !== ids.length) return 'Duplicate tool_call ids in one assistant message.';
      } else if (typeof m.content !== 'string') {
        return "Invalid value for 'content': expected a string, got null.";
      }
    } else if (m.role !== 'user' && m.role !== 'system') {
      return `Invalid value: '${m.role}'. Supported values are: 'system', 'assistant', 'user' and 'tool'.`;
    } else if (m.role === 'user' && Array.isArray(m.content)) {
      const problem = partsProblem(m.content);
      if (problem) return problem;
    } else if (typeof m.content !== 'string') {
      return `Invalid type for 'content' of a ${m.role} message: expected a string.`;
    }
  }
  if (open && open.size > 0) {
    return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open].join(', ')}`;
  }
  return null;
}

function completion(step: { text?: string; toolCalls?: FakeToolCall[] }, model: string, usage: FakeUsage): unknown {
  const toolCalls = (step.toolCalls ?? []).map((c) => ({
    id: c.id ?? `call_${++callCounter}`,
    type: 'function',
    function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments) },
  }));
  return {
    id: `chatcmpl-${++callCounter}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        finish_reason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
        message: {
          role: 'assistant',
          content: step.text ?? null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
      },
    ],
    usage: usageBody(usage),
  };
}

/** The chunks of a streamed answer as OpenAI sends them: role, content deltas, tool-call fragments (split mid-JSON), finish, usage. */
export function completionChunks(
  step: { text?: string; toolCalls?: FakeToolCall[] },
  model: string,
  usage: FakeUsage | null,
  chunkChars: number,
): unknown[] {
  const id = `chatcmpl-${++callCounter}`;
  const created = Math.floor(Date.now() / 1000);
  const chunk = (delta: unknown, finish: string | null = null) => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });
  const cut = (text: string) => {
    const parts: string[] = [];
    for (let i = 0; i < text.length; i += chunkChars) parts.push(text.slice(i, i + chunkChars));
    return parts;
  };
  const out: unknown[] = [chunk({ role: 'assistant', content: '', refusal: null })];
  for (const piece of cut(step.text ?? '')) out.push(chunk({ content: piece }));
  for (const [index, c] of (step.toolCalls ?? []).entries()) {
    const args = typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments);
    out.push(
      chunk({
        tool_calls: [
          { index, id: c.id ?? `call_${++callCounter}`, type: 'function', function: { name: c.name, arguments: '' } },
        ],
      }),
    );
    for (const piece of cut(args)) out.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  }
  out.push(chunk({}, (step.toolCalls ?? []).length > 0 ? 'tool_calls' : 'stop'));
  if (usage) {
    out.push({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: usageBody(usage) });
  }
  return out;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Starts the fake on 127.0.0.1 with a free port. */
export async function startFakeOpenAI(): Promise<FakeOpenAI> {
  const queue: FakeStep[] = [];
  const requests: RecordedRequest[] = [];
  const open = new Set<ServerResponse>();
  let fallback: StepFn = () => ({ text: 'ok' });
  let usage: UsageFn = () => ({ promptTokens: 1, completionTokens: 1 });
  let pace = { chunkChars: 8, chunkDelayMs: 0 };

  /** Writes the answer as server-sent events, stopping when the client goes away (a stopped run). */
  const sendStream = async (
    res: ServerResponse,
    record: RecordedRequest,
    step: { text?: string; toolCalls?: FakeToolCall[] },
  ) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const chunks = completionChunks(step, record.model, record.includeUsage ? usage(record) : null, pace.chunkChars);
    for (const c of chunks) {
      if (record.aborted || res.destroyed) return;
      const hasText =
        typeof (c as { choices: { delta?: { content?: string } }[] }).choices[0]?.delta?.content === 'string' &&
        (c as { choices: { delta: { content: string } }[] }).choices[0]!.delta.content !== '';
      if (hasText && record.firstTokenAt === null) record.firstTokenAt = Date.now();
      res.write(`data: ${JSON.stringify(c)}\n\n`);
      record.chunksSent++;
      if (pace.chunkDelayMs > 0) await new Promise((r) => setTimeout(r, pace.chunkDelayMs));
    }
    if (!record.aborted && !res.destroyed) res.end('data: [DONE]\n\n');
  };

  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      if (req.method === 'GET' && req.url === '/v1/models') {
        const data = fake.models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'fake' }));
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data }));
        return;
      }
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: 'not found' } }));
        return;
      }
      const parsed = JSON.parse(body) as {
        model: string;
        messages: RecordedRequest['messages'];
        tools?: RecordedRequest['tools'];
        max_tokens?: number;
        stream?: boolean;
        stream_options?: { include_usage?: boolean };
      };
      const record: RecordedRequest = {
        model: parsed.model,
        messages: parsed.messages,
        tools: parsed.tools ?? [],
        maxTokens: parsed.max_tokens ?? null,
        receivedAt: Date.now(),
        aborted: false,
        problem: requestProblem(parsed.messages),
        stream: parsed.stream === true,
        includeUsage: parsed.stream_options?.include_usage === true,
        firstTokenAt: null,
        chunksSent: 0,
      };
      requests.push(record);
      if (record.problem !== null) {
        res.writeHead(400, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            error: { message: record.problem, type: 'invalid_request_error', param: 'messages', code: null },
          }),
        );
        return;
      }
      res.on('close', () => {
        if (!res.writableEnded) record.aborted = true;
        open.delete(res);
      });
      const step = queue.shift() ?? fallback(record);
      if ('hang' in step) {
        open.add(res);
        return;
      }
      if ('status' in step) {
        const headers: Record<string, string> = {
          'content-type':
            step.rawBody === undefined ? 'application/json' : step.rawBody.startsWith('<') ? 'text/html' : 'text/plain',
        };
        if (step.retryAfterSeconds !== undefined) headers['retry-after'] = String(step.retryAfterSeconds);
        res
          .writeHead(step.status, headers)
          .end(
            step.rawBody ??
              JSON.stringify({ error: { message: step.error ?? `fake error ${step.status}`, type: 'fake' } }),
          );
        return;
      }
      if (step.gate) await step.gate;
      if (record.aborted) return;
      if (record.stream) return sendStream(res, record, step);
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify(completion(step, parsed.model, usage(record))));
    })();
  });
  // Connections stay open between requests, as the real API keeps them: with 1 s (the old value) node's agent and
  // undici, which take 1 s off a server's keep-alive hint, opened a new connection for every request.
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const fake: FakeOpenAI = {
    models: ['gpt-4o-mini'],
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    reply: (...steps) => void queue.push(...steps),
    respondWith: (fn) => {
      fallback = fn;
    },
    usageWith: (fn) => {
      usage = fn;
    },
    hanging: () => open.size,
    streamPace: (p) => {
      pace = { ...pace, ...p };
    },
    close: async () => {
      for (const r of open) r.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}
