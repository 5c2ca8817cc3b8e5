import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted model step: assistant text, tool calls, or an HTTP error. */
export type FakeStep =
  | { text: string; toolCalls?: FakeToolCall[]; gate?: Promise<void> }
  | { toolCalls: FakeToolCall[]; text?: string; gate?: Promise<void> }
  | { status: number; error?: string; retryAfterSeconds?: number }
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
}

export type StepFn = (request: RecordedRequest) => FakeStep;

/**
 * A local OpenAI-compatible `/v1/chat/completions` server for the real `openai` SDK.
 * Steps are scripted in order (`reply`), or computed (`respondWith`); when the script is empty
 * it answers with the fallback (a plain "ok" text by default).
 */
export interface FakeOpenAI {
  readonly baseUrl: string;
  readonly requests: RecordedRequest[];
  /** Queues steps, answered in order. */
  reply(...steps: FakeStep[]): void;
  /** Answers every request not covered by the queue. */
  respondWith(fn: StepFn): void;
  /** The model ids `GET /v1/models` lists (default: gpt-4o-mini). */
  models: string[];
  /** Requests currently held open by `{ hang: true }`. */
  hanging(): number;
  close(): Promise<void>;
}

let callCounter = 0;

function completion(step: { text?: string; toolCalls?: FakeToolCall[] }, model: string): unknown {
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
        message: { role: 'assistant', content: step.text ?? null, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) },
      },
    ],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };
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

  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      if (req.method === 'GET' && req.url === '/v1/models') {
        const data = fake.models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'fake' }));
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data }));
        return;
      }
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found' } }));
        return;
      }
      const parsed = JSON.parse(body) as { model: string; messages: RecordedRequest['messages']; tools?: RecordedRequest['tools']; max_tokens?: number };
      const record: RecordedRequest = {
        model: parsed.model,
        messages: parsed.messages,
        tools: parsed.tools ?? [],
        maxTokens: parsed.max_tokens ?? null,
        receivedAt: Date.now(),
        aborted: false,
      };
      requests.push(record);
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
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (step.retryAfterSeconds !== undefined) headers['retry-after'] = String(step.retryAfterSeconds);
        res.writeHead(step.status, headers).end(JSON.stringify({ error: { message: step.error ?? `fake error ${step.status}`, type: 'fake' } }));
        return;
      }
      if (step.gate) await step.gate;
      if (record.aborted) return;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completion(step, parsed.model)));
    })();
  });
  server.keepAliveTimeout = 1000;
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
    hanging: () => open.size,
    close: async () => {
      for (const r of open) r.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}
