import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOpenAiClient, type LlmRequest } from '../../src/agent/llm-client.js';
import { RunAbortedError } from '../../src/errors.js';
import { startFakeOpenAI, type FakeOpenAI, type FakeStep } from '../fakes/fake-openai.js';
import { waitFor } from '../fakes/wait-for.js';

let model: FakeOpenAI;
beforeEach(async () => {
  model = await startFakeOpenAI();
});
afterEach(async () => model.close());

const client = (stream: boolean) =>
  createOpenAiClient({ apiKey: 'k', baseUrl: model.baseUrl, model: 'm', timeoutMs: 5000, stream, retries: 0 });
const ask = (extra: Partial<LlmRequest> = {}): LlmRequest => ({
  messages: [{ role: 'user', content: 'hi' }],
  tools: [],
  signal: new AbortController().signal,
  ...extra,
});

const withTools: FakeStep = {
  text: 'Let me look that up for you, one moment.',
  toolCalls: [
    {
      id: 'call_a',
      name: 'add_task',
      arguments: { title: 'Write the report', description: 'with "quotes", braces {} and unicode ✓' },
    },
    { id: 'call_b', name: 'list_tasks', arguments: {} },
  ],
};

describe('streamed model requests', () => {
  it('asks with stream: true and include_usage, and hands every text delta on as it arrives', async () => {
    model.reply({ text: 'The answer is forty-two, as everyone knows.' });
    const deltas: string[] = [];
    const response = await client(true).complete(ask({ onText: (d) => deltas.push(d) }));
    expect(model.requests[0]).toMatchObject({ stream: true, includeUsage: true });
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.join('')).toBe('The answer is forty-two, as everyone knows.');
    expect(response.text).toBe('The answer is forty-two, as everyone knows.');
  });

  it('assembles tool calls sent in fragments split mid-JSON into the same calls as without streaming', async () => {
    model.streamPace({ chunkChars: 5 });
    model.reply(withTools, withTools);
    const streamed = await client(true).complete(ask());
    const plain = await client(false).complete(ask());
    expect(model.requests.map((r) => r.stream)).toEqual([true, false]);
    expect(streamed.toolCalls).toEqual(plain.toolCalls);
    expect(streamed.toolCalls.map((c) => JSON.parse(c.arguments) as unknown)).toEqual([
      { title: 'Write the report', description: 'with "quotes", braces {} and unicode ✓' },
      {},
    ]);
    expect(streamed).toEqual(plain);
  });

  it('reads the token usage from the final chunk', async () => {
    model.usageWith(() => ({ promptTokens: 120, completionTokens: 34, cachedTokens: 64 }));
    model.reply({ text: 'counted' });
    const response = await client(true).complete(ask());
    expect(response.usage).toMatchObject({ promptTokens: 120, completionTokens: 34, cachedTokens: 64 });
    expect(response.finishReasons).toEqual(['stop']);
  });

  it('an abort mid-stream cuts the request at once', async () => {
    model.streamPace({ chunkChars: 2, chunkDelayMs: 50 });
    model.reply({ text: 'a long answer that takes a good while to arrive in full' });
    const controller = new AbortController();
    const deltas: string[] = [];
    const pending = client(true).complete(ask({ signal: controller.signal, onText: (d) => deltas.push(d) }));
    await waitFor(() => deltas.length >= 2, 10_000);
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(RunAbortedError);
    await waitFor(() => model.requests[0]!.aborted, 10_000);
    expect(deltas.join('').length).toBeLessThan('a long answer that takes a good while to arrive in full'.length);
  });
});
