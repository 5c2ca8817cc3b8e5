import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { stringify } from 'node:querystring';
import * as webApi from '@slack/web-api';
import type { Logger } from '../../src/logger.js';

/** One Web API method called with its arguments: Slack's answer (`ok: true`), or one of WebClient's errors. */
export type WebApiCaller = (method: string, args: Record<string, unknown>) => Promise<Record<string, unknown>>;

export interface WebApiCallerOptions {
  readonly token: string;
  /** The API base, ending in `/` (SLACK_API_URL; default Slack's). */
  readonly apiUrl?: string;
  /** Further tries after a network error or an HTTP status other than 200 and 429 (as WebClient's `retries`). */
  readonly retries: number;
  /** Longest wait for one try's answer. */
  readonly timeoutMs: number;
  /** Calls whose arguments hold bytes or streams (multipart uploads) go here: WebClient's `apiCall`. */
  readonly fallback: (method: string, args: Record<string, unknown>) => Promise<unknown>;
  readonly logger: Logger;
  /** Injected for tests: the wait between tries. */
  readonly sleep?: (ms: number) => Promise<void>;
}

const SLACK_API_URL = 'https://slack.com/api/';
/** The pace of retries, for WebClient's `retryConfig` and this caller alike: 250 ms, doubling, at most 2 s. */
export const RETRY_PACE = { factor: 2, minTimeout: 250, maxTimeout: 2000 } as const;
const backoffMs = (attempt: number) =>
  Math.min(RETRY_PACE.minTimeout * RETRY_PACE.factor ** attempt, RETRY_PACE.maxTimeout);

/** Bytes or a stream: only WebClient's multipart form can carry them. */
const isBinary = (value: unknown) =>
  value instanceof Uint8Array || (typeof value === 'object' && value !== null && 'pipe' in value);

/** The arguments as WebClient sends them: url-encoded, objects and arrays as JSON, undefined and null left out. */
function formBody(args: Record<string, unknown>): string {
  const flat: Record<string, string | number | boolean> = {};
  for (const key in args) {
    const value = args[key];
    if (value === undefined || value === null) continue;
    flat[key] =
      typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
        ? value
        : JSON.stringify(value);
  }
  return stringify(flat);
}

/** Seconds of a 429's Retry-After, as WebClient reads it; null when missing or not a number. */
function retryAfterSeconds(headers: IncomingHttpHeaders): number | null {
  const seconds = Number.parseInt(String(headers['retry-after'] ?? ''), 10);
  return Number.isNaN(seconds) ? null : seconds;
}

/** Logs the warnings Slack put in an answer (deprecations, truncations), as WebClient does. */
function logWarnings(method: string, result: Record<string, unknown>, logger: Logger): void {
  const meta = result.response_metadata as { warnings?: unknown; messages?: unknown } | undefined;
  if (typeof result.warning === 'string') logger.warn({ method, warning: result.warning }, 'Slack warned');
  if (meta === undefined || meta === null) return;
  for (const note of [meta.warnings, meta.messages].flatMap((list) => (Array.isArray(list) ? list : [])))
    logger.warn({ method, warning: String(note) }, 'Slack warned');
}

/** One HTTP answer, read whole. */
interface Answer {
  readonly status: number;
  readonly statusText: string;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
}

/** A kept-alive connection idle this long is closed (as undici and src/net/keep-alive-fetch.ts do). */
const IDLE_CONNECTION_MS = 4_000;

/** The answer's headers as WebAPIHTTPError keeps them: one string each. */
const flatHeaders = (headers: IncomingHttpHeaders): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)]));

/**
 * Errand's own Web API calls without WebClient's per-call machinery: the same request (POST, url-encoded
 * body, Bearer token) on kept-alive connections, the same errors (`WebAPIPlatformError` for `ok: false`,
 * `WebAPIRateLimitedError` for a 429 with Retry-After, left to the outbound queue to wait out;
 * `WebAPIHTTPError` and `WebAPIRequestError` retried `retries` times with WebClient's backoff), so every
 * caller's error handling reads them unchanged. Why not WebClient: each of its calls runs p-queue, p-retry,
 * an `AbortSignal.timeout` (whose `DOMException` is built when it fires, 30 s later), and three
 * `JSON.stringify`s of redacted copies of the request and answer for debug lines it builds whether or not
 * they are logged; why node's `http` and not a fetch: the URL, header and signal handling of a fetch cost as
 * much again. Per call, 20 in flight: WebClient 180-190 µs of CPU, this over src/net/keep-alive-fetch.ts
 * 140-155 µs, this over `http` 90-95 µs (bench/OVERHEAD.md, "Slack's CPU per message, back under 1.3×?");
 * a mention makes three calls.
 */
export function createWebApiCaller(options: WebApiCallerOptions): WebApiCaller {
  const base = new URL(options.apiUrl ?? SLACK_API_URL);
  const secure = base.protocol === 'https:';
  const transport = secure ? https : http;
  const agent = new transport.Agent({ keepAlive: true, timeout: IDLE_CONNECTION_MS, scheduling: 'lifo' });
  const target = { host: base.hostname, port: base.port || (secure ? 443 : 80), agent, method: 'POST' };
  const prefix = base.pathname.endsWith('/') ? base.pathname : `${base.pathname}/`;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const headers = {
    authorization: `Bearer ${options.token}`,
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
  };

  /** One request, its answer read whole; a kept-alive connection the server closed as it left is retried once on a new one. */
  const send = (path: string, body: string, retried = false): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const request = transport.request(
        { ...target, path, headers: { ...headers, 'content-length': Buffer.byteLength(body) } },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', reject);
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              statusText: response.statusMessage ?? '',
              headers: response.headers,
              text: (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8'),
            }),
          );
        },
      );
      request.setTimeout(options.timeoutMs, () =>
        request.destroy(new Error(`no answer from Slack within ${options.timeoutMs} ms`)),
      );
      request.on('error', (err: NodeJS.ErrnoException) => {
        if (!retried && request.reusedSocket && err.code === 'ECONNRESET') resolve(send(path, body, true));
        else reject(err);
      });
      request.end(body);
    });

  /** One try: the answer's JSON, or a thrown WebClient error (a 429 and `ok: false` are final, others retried). */
  const once = async (path: string, body: string): Promise<Record<string, unknown>> => {
    let answer: Answer;
    try {
      answer = await send(path, body);
    } catch (err) {
      throw new webApi.WebAPIRequestError(err instanceof Error ? err : new Error(String(err)));
    }
    if (answer.status === 429) {
      const seconds = retryAfterSeconds(answer.headers);
      if (seconds !== null) throw new webApi.WebAPIRateLimitedError(seconds);
    }
    if (answer.status !== 200)
      throw new webApi.WebAPIHTTPError(answer.status, answer.statusText, flatHeaders(answer.headers), answer.text);
    try {
      return JSON.parse(answer.text) as Record<string, unknown>;
    } catch {
      return { ok: false, error: answer.text };
    }
  };

  return async (method, args) => {
    for (const key in args)
      if (isBinary(args[key])) return (await options.fallback(method, args)) as Record<string, unknown>;
    const path = prefix + method;
    const body = formBody(args);
    for (let attempt = 0; ; attempt++) {
      let result: Record<string, unknown>;
      try {
        result = await once(path, body);
      } catch (err) {
        const final = err instanceof webApi.WebAPIRateLimitedError || attempt >= options.retries;
        if (final || (err instanceof webApi.WebAPIHTTPError && err.statusCode === 429)) throw err;
        await sleep(backoffMs(attempt));
        continue;
      }
      logWarnings(method, result, options.logger);
      if (result.ok !== true)
        throw new webApi.WebAPIPlatformError(result as unknown as webApi.WebAPICallResult & { error: string });
      return result;
    }
  };
}
