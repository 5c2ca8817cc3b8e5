import { getEventListeners } from 'node:events';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOpenAiClient } from '../../src/agent/llm-client.js';
import { ModelError, RunAbortedError } from '../../src/errors.js';
import { createLogger } from '../../src/logger.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai.js';

let model: FakeOpenAI;
beforeEach(async () => {
  model = await startFakeOpenAI();
});
afterEach(async () => model.close());

function captureLogger() {
  const entries: { level: number; msg: string; status?: number | null }[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      entries.push(JSON.parse(chunk.toString('utf8')) as (typeof entries)[number]);
      cb();
    },
  });
  return { entries, logger: createLogger('info', stream) };
}

const ask = { messages: [{ role: 'user' as const, content: 'hi' }], tools: [] };

describe('model client', () => {
  it('sends OPENAI_MAX_TOKENS as max_tokens with every request', async () => {
    const client = createOpenAiClient({
      apiKey: 'k',
      baseUrl: model.baseUrl,
      model: 'm',
      timeoutMs: 5000,
      maxTokens: 321,
    });
    await client.complete({ ...ask, signal: new AbortController().signal });
    expect(model.requests[0]!.maxTokens).toBe(321);
  });

  it('leaves no listener on the run signal after its requests, streamed or not, however many steps the run takes', async () => {
    for (const stream of [false, true]) {
      const client = createOpenAiClient({ apiKey: 'k', baseUrl: model.baseUrl, model: 'm', timeoutMs: 5000, stream });
      const run = new AbortController();
      for (let step = 0; step < 12; step++) await client.complete({ ...ask, signal: run.signal });
      expect(getEventListeners(run.signal, 'abort')).toHaveLength(0);
    }
  });

  it('still cancels the request in flight when the run is stopped', async () => {
    model.reply({ hang: true });
    const client = createOpenAiClient({
      apiKey: 'k',
      baseUrl: model.baseUrl,
      model: 'm',
      timeoutMs: 10_000,
      retries: 0,
    });
    const run = new AbortController();
    const answer = client.complete({ ...ask, signal: run.signal });
    await expect.poll(() => model.hanging()).toBe(1);
    run.abort();
    await expect(answer).rejects.toBeInstanceOf(RunAbortedError);
    await expect.poll(() => model.hanging()).toBe(0);
  });

  it('gives the chat a plain sentence and logs the status with the settings to check', async () => {
    model.respondWith(() => ({ status: 404, error: 'The model `gpt-4o-mini` does not exist' }));
    const { entries, logger } = captureLogger();
    const client = createOpenAiClient({
      apiKey: 'k',
      baseUrl: model.baseUrl,
      model: 'gpt-4o-mini',
      timeoutMs: 5000,
      logger,
    });
    const err = await client.complete({ ...ask, signal: new AbortController().signal }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelError);
    const modelError = err as ModelError;
    expect(modelError.message).toBe(
      'the model service refused the request (HTTP 404: The model `gpt-4o-mini` does not exist)',
    );
    expect(modelError.message).not.toMatch(/OPENAI_/);
    expect(modelError.operatorHint).toMatch(/HTTP 404.*OPENAI_MODEL.*OPENAI_BASE_URL.*\/v1/);
    expect(entries).toEqual([expect.objectContaining({ level: 50, status: 404, msg: modelError.operatorHint })]);
  });

  it('logs every failed attempt of a transient failure, not only the last', async () => {
    model.reply({ status: 503 }, { status: 502 }, { text: 'fine' });
    const { entries, logger } = captureLogger();
    const client = createOpenAiClient({
      apiKey: 'k',
      baseUrl: model.baseUrl,
      model: 'm',
      timeoutMs: 5000,
      logger,
      backoffMs: () => 1,
    });
    await expect(client.complete({ ...ask, signal: new AbortController().signal })).resolves.toMatchObject({
      text: 'fine',
    });
    expect(entries.map((e) => [e.level, e.status])).toEqual([
      [40, 503],
      [40, 502],
    ]);
  });

  it('says the model could not be reached, with the host and why, when nothing listens at the base URL, naming OPENAI_BASE_URL in the log only', async () => {
    const { entries, logger } = captureLogger();
    const client = createOpenAiClient({
      apiKey: 'k',
      baseUrl: 'http://127.0.0.1:1/v1',
      model: 'm',
      timeoutMs: 5000,
      logger,
      retries: 0,
    });
    const err = (await client
      .complete({ ...ask, signal: new AbortController().signal })
      .catch((e: unknown) => e)) as ModelError;
    expect(err.message).toBe('the model service at 127.0.0.1:1 could not be reached (connection refused)');
    expect(err.message).not.toMatch(/OPENAI_/);
    expect(entries.at(-1)!.msg).toMatch(
      /could not connect to the model endpoint http:\/\/127\.0\.0\.1:1\/v1 \(ECONNREFUSED\); check OPENAI_BASE_URL/,
    );
  });

  it('says the model did not answer in time when the request times out', async () => {
    model.reply({ hang: true });
    const { entries, logger } = captureLogger();
    const client = createOpenAiClient({
      apiKey: 'k',
      baseUrl: model.baseUrl,
      model: 'm',
      timeoutMs: 100,
      logger,
      retries: 0,
    });
    const err = (await client
      .complete({ ...ask, signal: new AbortController().signal })
      .catch((e: unknown) => e)) as ModelError;
    expect(err).toBeInstanceOf(ModelError);
    expect(err.message).toBe('the model service did not answer within 1 s');
    expect(err.transient).toBe(true);
    expect(entries.at(-1)!.msg).toMatch(
      /did not answer within 1 s; check the endpoint's load or raise OPENAI_TIMEOUT_SECONDS/,
    );
  });

  it("names only the status for an error page that is not a message (a proxy's HTML)", async () => {
    model.reply({ status: 502, rawBody: '<html><body><h1>502 Bad Gateway</h1></body></html>' });
    const client = createOpenAiClient({ apiKey: 'k', baseUrl: model.baseUrl, model: 'm', timeoutMs: 5000, retries: 0 });
    const err = (await client
      .complete({ ...ask, signal: new AbortController().signal })
      .catch((e: unknown) => e)) as ModelError;
    expect(err.message).toBe('the model service answered with an error (HTTP 502)');
  });

  it('keeps a one-line plain-text error body, cut short', async () => {
    model.reply({ status: 503, rawBody: `Service Unavailable: ${'overloaded '.repeat(40)}` });
    const client = createOpenAiClient({ apiKey: 'k', baseUrl: model.baseUrl, model: 'm', timeoutMs: 5000, retries: 0 });
    const err = (await client
      .complete({ ...ask, signal: new AbortController().signal })
      .catch((e: unknown) => e)) as ModelError;
    expect(err.message).toMatch(
      /^the model service answered with an error \(HTTP 503: Service Unavailable: overloaded overloaded .*…\)$/,
    );
    expect(err.message.length).toBeLessThan(220);
  });
});
