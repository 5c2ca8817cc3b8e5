import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as webApi from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformError, retryAfterMs } from '../../adapters/slack/slack-api.js';
import { createWebApiCaller, type WebApiCallerOptions } from '../../adapters/slack/web-api-caller.js';
import { silentLogger } from '../../src/logger.js';
import { FakeSlack } from '../fakes/fake-slack.js';

let slack: FakeSlack;
beforeAll(async () => {
  slack = await FakeSlack.start({ rateLimit: null });
});
afterAll(async () => {
  await slack.close();
});

const noFallback = async () => {
  throw new Error('the fallback was not expected here');
};

function caller(overrides: Partial<WebApiCallerOptions> = {}) {
  return createWebApiCaller({
    token: 'xoxb-caller',
    apiUrl: slack.apiUrl,
    retries: 0,
    timeoutMs: 5_000,
    fallback: noFallback,
    logger: silentLogger(),
    ...overrides,
  });
}

/** The error a call rejects with. */
async function failureOf(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => expect.unreachable('the call succeeded'),
    (err: unknown) => err,
  );
}

/** A server that answers each request with the next of `answers` (status, body), counting the requests. */
async function scripted(
  answers: { status: number; body: string }[],
): Promise<{ url: string; server: Server; hits: () => number }> {
  let hits = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const a = answers[Math.min(hits++, answers.length - 1)]!;
      res.writeHead(a.status, { 'content-type': 'application/json' }).end(a.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/`, server, hits: () => hits };
}

describe('Slack Web API caller (without WebClient)', () => {
  it('posts the arguments as WebClient does (Bearer token, objects as JSON) and returns the answer', async () => {
    const before = slack.calls.length;
    const blocks = [{ type: 'section', text: { type: 'mrkdwn', text: '*hi* & <you>' } }];
    const answer = await caller()('chat.postMessage', {
      channel: 'C0GENERAL',
      text: 'hi & <you>',
      blocks,
      thread_ts: undefined,
    });
    expect(answer.ok).toBe(true);
    expect(typeof answer.ts).toBe('string');
    const call = slack.calls[before]!;
    expect(call.method).toBe('chat.postMessage');
    expect(call.token).toBe('xoxb-caller');
    expect(call.args).toEqual({ channel: 'C0GENERAL', text: 'hi & <you>', blocks });
    expect(slack.messages('C0GENERAL').some((m) => m.ts === answer.ts && m.text === 'hi & <you>')).toBe(true);
  });

  it("throws WebClient's WebAPIPlatformError on ok: false, read by the adapter's error handling", async () => {
    slack.failNext('agents.sessions.setStatus', { error: 'not_allowed_token_type' });
    const err = await failureOf(
      caller()('agents.sessions.setStatus', { channel_id: 'C1', thread_ts: '1.2', status: 'processing' }),
    );
    expect(err).toBeInstanceOf(webApi.WebAPIPlatformError);
    expect((err as webApi.WebAPIPlatformError).code).toBe(webApi.ErrorCode.PlatformError);
    expect(platformError(err)).toBe('not_allowed_token_type');
    expect(retryAfterMs(err)).toBeNull();
  });

  it('throws WebAPIRateLimitedError on a 429 with Retry-After, without retrying (the outbound queue waits it out)', async () => {
    slack.failNext('chat.postMessage', { status: 429, retryAfter: 7 });
    const before = slack.calls.length;
    const err = await failureOf(caller({ retries: 2 })('chat.postMessage', { channel: 'C0GENERAL', text: 'x' }));
    expect(err).toBeInstanceOf(webApi.WebAPIRateLimitedError);
    expect((err as webApi.WebAPIRateLimitedError).retryAfter).toBe(7);
    expect(retryAfterMs(err)).toBe(7_000);
    expect(slack.calls.length - before).toBe(1);
  });

  it('goes to the API base it is given (SLACK_API_URL), with or without its trailing slash', async () => {
    const before = slack.calls.length;
    await caller({ apiUrl: slack.apiUrl.replace(/\/$/, '') })('auth.test', {});
    expect(slack.calls.slice(before).map((c) => c.method)).toEqual(['auth.test']);

    const elsewhere = await scripted([{ status: 200, body: '{"ok":true,"where":"elsewhere"}' }]);
    try {
      expect(await caller({ apiUrl: elsewhere.url })('auth.test', {})).toEqual({ ok: true, where: 'elsewhere' });
      expect(elsewhere.hits()).toBe(1);
      expect(slack.calls.length - before).toBe(1);
    } finally {
      elsewhere.server.close();
    }
  });

  it("retries an HTTP error with WebClient's backoff, then gives up with WebAPIHTTPError", async () => {
    const flaky = await scripted([
      { status: 503, body: 'busy' },
      { status: 200, body: '{"ok":true}' },
    ]);
    const waits: number[] = [];
    const sleep = async (ms: number) => void waits.push(ms);
    try {
      expect(await caller({ apiUrl: flaky.url, retries: 2, sleep })('chat.postMessage', {})).toEqual({ ok: true });
      expect(waits).toEqual([250]);
      const down = await scripted([{ status: 502, body: 'bad gateway' }]);
      try {
        const err = await failureOf(caller({ apiUrl: down.url, retries: 2, sleep })('chat.postMessage', {}));
        expect(err).toBeInstanceOf(webApi.WebAPIHTTPError);
        expect((err as webApi.WebAPIHTTPError).statusCode).toBe(502);
        expect(down.hits()).toBe(3);
        expect(waits).toEqual([250, 250, 500]);
      } finally {
        down.server.close();
      }
    } finally {
      flaky.server.close();
    }
  });

  it('turns a connection failure into WebAPIRequestError, as WebClient does', async () => {
    const gone = await scripted([{ status: 200, body: '{"ok":true}' }]);
    await new Promise((resolve) => gone.server.close(resolve));
    const err = await failureOf(caller({ apiUrl: gone.url })('auth.test', {}));
    expect(err).toBeInstanceOf(webApi.WebAPIRequestError);
    expect((err as webApi.WebAPIRequestError).original.message).toMatch(/ECONNREFUSED/);
  });

  it('hands calls that carry bytes to the fallback (WebClient, whose multipart form can carry them)', async () => {
    const handed: string[] = [];
    const call = caller({
      fallback: async (method) => {
        handed.push(method);
        return { ok: true, via: 'fallback' };
      },
    });
    expect(await call('files.upload', { file: Buffer.from('bytes') })).toEqual({ ok: true, via: 'fallback' });
    expect(handed).toEqual(['files.upload']);
  });
});
