import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOpenAiClient, type LlmMessage } from '../../src/agent/llm-client.js';
import { ModelError } from '../../src/errors.js';
import { requestProblem, startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai.js';

let model: FakeOpenAI;
beforeEach(async () => {
  model = await startFakeOpenAI();
});
afterEach(async () => model.close());

const client = () =>
  createOpenAiClient({ apiKey: 'k', baseUrl: model.baseUrl, model: 'm', timeoutMs: 5_000, retries: 0 });
const signal = () => new AbortController().signal;
const call = { id: 'call_1', name: 'list_tasks', arguments: '{}' };

describe('model requests against the strict fake', () => {
  it('returns the usage the endpoint reports', async () => {
    model.usageWith(() => ({ promptTokens: 1_234, completionTokens: 56 }));
    model.reply({ text: 'hi' });
    const response = await client().complete({
      messages: [
        { role: 'system', content: 's' },
        { role: 'user', content: 'u' },
      ],
      tools: [],
      signal: signal(),
    });
    expect(response.usage).toEqual({ promptTokens: 1_234, completionTokens: 56, model: 'm' });
    expect(response.finishReasons).toEqual(['stop']);
    expect(response.responseModel).toBe('m');
  });

  it('reads the cached part of the prompt from prompt_tokens_details', async () => {
    model.usageWith(() => ({ promptTokens: 2_000, completionTokens: 10, cachedTokens: 1_536 }));
    model.reply({ toolCalls: [{ name: 'list_tasks', arguments: {} }] });
    const response = await client().complete({
      messages: [
        { role: 'system', content: 's' },
        { role: 'user', content: 'u' },
      ],
      tools: [],
      signal: signal(),
      model: 'gpt-4o-mini',
    });
    expect(response.usage).toEqual({
      promptTokens: 2_000,
      completionTokens: 10,
      cachedTokens: 1_536,
      model: 'gpt-4o-mini',
    });
    expect(response.finishReasons).toEqual(['tool_calls']);
  });

  it('refuses a tool message without its call, as the real API does, and the client names the refusal', async () => {
    const messages: LlmMessage[] = [
      { role: 'system', content: 's' },
      { role: 'tool', toolCallId: 'call_1', content: 'r' },
    ];
    const err = await client()
      .complete({ messages, tools: [], signal: signal() })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelError);
    expect((err as ModelError).message).toMatch(
      /^the model service refused the request \(HTTP 400: The first message after the system messages must have role 'user'/,
    );
    expect((err as ModelError).operatorHint).toMatch(/HTTP 400/);
    expect(model.requests[0]!.problem).toMatch(/first message after the system messages must have role 'user'/);
  });

  it('finds every kind of invalid sequence the context builder must avoid', () => {
    const sys = { role: 'system', content: 's' };
    const user = { role: 'user', content: 'u' };
    const asking = {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'a', type: 'function', function: { name: 'x', arguments: '{}' } }],
    };
    expect(requestProblem([])).toMatch(/too short/);
    expect(requestProblem([sys, user, asking, { role: 'tool', tool_call_id: 'a', content: 'r' }])).toBeNull();
    expect(requestProblem([sys, user, asking])).toMatch(/did not have response messages: a/);
    expect(requestProblem([sys, user, asking, user])).toMatch(/did not have response messages: a/);
    expect(requestProblem([sys, user, { role: 'tool', tool_call_id: 'a', content: 'r' }])).toMatch(
      /must be a response to a preceeding message/,
    );
    expect(
      requestProblem([
        sys,
        user,
        asking,
        { role: 'tool', tool_call_id: 'a', content: 'r' },
        { role: 'tool', tool_call_id: 'a', content: 'again' },
      ]),
    ).toMatch(/must be a response/);
    expect(requestProblem([sys, asking, { role: 'tool', tool_call_id: 'a', content: 'r' }])).toMatch(
      /must have role 'user'/,
    );
    expect(requestProblem([sys, user, { role: 'assistant', content: null }])).toMatch(/expected a string, got null/);
  });

  it('accepts what the agent sends: a call followed by its result', async () => {
    const messages: LlmMessage[] = [
      { role: 'system', content: 's' },
      { role: 'user', content: 'u' },
      { role: 'assistant', content: null, toolCalls: [call] },
      { role: 'tool', toolCallId: 'call_1', content: '{"ok":true}' },
    ];
    await expect(client().complete({ messages, tools: [], signal: signal() })).resolves.toMatchObject({ text: 'ok' });
    expect(model.requests[0]!.problem).toBeNull();
  });
});
