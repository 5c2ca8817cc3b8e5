import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkModelEndpoint } from '../../src/agent/model-endpoint-check.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/fake-openai.js';

let model: FakeOpenAI;
beforeEach(async () => {
  model = await startFakeOpenAI();
});
afterEach(async () => model.close());

const check = (baseUrl: string, name = 'gpt-4o-mini') =>
  checkModelEndpoint({ baseUrl, apiKey: 'k', model: name, fetch: globalThis.fetch });

describe('start-up check of the model endpoint', () => {
  it('finds nothing wrong with a working endpoint that lists the model', async () => {
    expect(await check(model.baseUrl)).toBeNull();
  });

  it('suggests the missing /v1 when the base URL answers 404', async () => {
    const withoutV1 = model.baseUrl.replace(/\/v1$/, '');
    expect(await check(withoutV1)).toBe(
      `The model endpoint answered 404 for ${withoutV1}/models; OPENAI_BASE_URL probably lacks /v1 (try ${withoutV1}/v1).`,
    );
  });

  it('names OPENAI_MODEL when the endpoint does not list the model', async () => {
    model.models = ['llama3.1:8b', 'qwen2.5:7b'];
    expect(await check(model.baseUrl, 'gpt-4o-mini')).toMatch(
      /does not list model "gpt-4o-mini" \(it lists 2: llama3\.1:8b, qwen2\.5:7b\); check OPENAI_MODEL\.$/,
    );
  });

  it('says the endpoint could not be reached, with the system error', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    expect(await check(`http://127.0.0.1:${port}/v1`)).toBe(
      `Could not reach the model endpoint at http://127.0.0.1:${port}/v1 (ECONNREFUSED); check OPENAI_BASE_URL and the network.`,
    );
  });
});
