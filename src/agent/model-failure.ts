import { z } from 'zod';

/**
 * What went wrong with a model request, read off the SDK's error by the module that wraps the SDK
 * (llm-client.ts), so this module needs no SDK: `body` is the parsed error body's `error` field
 * (undefined when the body was not JSON), `text` the SDK's message ("500 upstream overloaded").
 */
export type ModelRequestFailure =
  | { kind: 'timeout' }
  | { kind: 'connection'; error: unknown }
  | { kind: 'status'; status: number; body: unknown; text: string; retryAfter: string | null }
  | { kind: 'other'; error: unknown };

/** A failed model request put into words: what the thread is told, what the log says, whether to try again. */
export interface ModelFailure {
  /** A later attempt may succeed (timeouts, connection errors, 408, 409, 429, 5xx). */
  transient: boolean;
  /** For the chat thread: what happened (no answer, no connection, or the status the endpoint answered), without settings or secrets. */
  userText: string;
  /** For the log: what failed and which setting to check. */
  operatorHint: string;
  status: number | null;
  retryAfterMs: number | null;
}

/** Where the model endpoint is, as the request was made to it: for words, never for a request. */
export interface ModelEndpoint {
  url: string;
  apiKey: string | undefined;
  model: string;
  timeoutMs: number;
}

/** Longest piece of the endpoint's own error message that is repeated. */
const DETAIL_CHARS = 160;

/** What the common system error codes of a failed connection mean, in a few words. */
const CONNECTION_CODES: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  CERT_HAS_EXPIRED: 'its TLS certificate has expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its TLS certificate is self-signed',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its TLS certificate could not be verified',
  UND_ERR_SOCKET: 'the connection was closed',
};

const errorBodySchema = z.union([z.string(), z.object({ message: z.string() }).transform((b) => b.message)]);

/** The endpoint's URL without userinfo, query or fragment, which may carry credentials. */
export function displayEndpoint(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`;
  } catch {
    return 'the configured endpoint';
  }
}

/** The endpoint's host (and port), the one part of its URL a person in the thread needs. */
function displayHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the configured endpoint';
  }
}

/** The first system error code on the error or its causes ("ECONNREFUSED"), or null. */
function systemCode(err: unknown): string | null {
  let e: unknown = err;
  for (let depth = 0; e instanceof Error && depth < 6; depth++, e = e.cause) {
    const code: unknown = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z_]+$/.test(code)) return code;
  }
  return null;
}

/** Removes what could be a credential from text an endpoint wrote: the configured key, key-like tokens, bearer tokens, secret query values. */
export function withoutSecrets(text: string, apiKey: string | undefined): string {
  let out = text;
  if (apiKey && apiKey.length >= 4) out = out.split(apiKey).join('[redacted]');
  return out
    .replace(/\b(?:sk|rk|pk|ak)-[A-Za-z0-9_*.-]{6,}/g, '[redacted]')
    .replace(/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, '$1 [redacted]')
    .replace(/([?&](?:api[_-]?key|key|token|access_token|secret|password|sig|signature)=)[^&\s]+/gi, '$1[redacted]')
    .replace(/(\/\/)[^/\s:@]+:[^/\s@]+@/g, '$1');
}

/**
 * The endpoint's own short explanation of an error status: the `error.message` of an OpenAI-style
 * body, or a one-line plain-text body; null for no body, HTML pages and anything else.
 */
function endpointSays(failure: { body: unknown; text: string }, apiKey: string | undefined): string | null {
  const body = errorBodySchema.safeParse(failure.body);
  let text: string | null = body.success ? body.data : null;
  if (text === null && failure.body === undefined) {
    // A body that was not JSON is the error's message after the status ("502 Bad Gateway").
    const rest = failure.text.replace(/^\d{3}\s+/, '');
    text = /status code \(no body\)$/.test(rest) || /<[a-z!]/i.test(rest) ? null : rest;
  }
  if (text === null) return null;
  const line = withoutSecrets(text.replace(/\s+/g, ' ').trim(), apiKey).replace(/[.\s]+$/, '');
  if (line === '') return null;
  return line.length > DETAIL_CHARS ? `${line.slice(0, DETAIL_CHARS - 1)}…` : line;
}

function retryAfterMs(header: string | null): number | null {
  return header !== null && header.trim() !== '' && Number.isFinite(Number(header)) ? Number(header) * 1000 : null;
}

/**
 * Says what happened to a model request that failed: no answer in time, no connection (with the
 * host and the system's reason), or an error status (with the endpoint's own short message). The
 * thread and the log get the same facts; only the log names settings to check.
 */
export function describeModelFailure(failure: ModelRequestFailure, endpoint: ModelEndpoint): ModelFailure {
  const base = { status: null, retryAfterMs: null };
  const where = displayEndpoint(endpoint.url);
  if (failure.kind === 'timeout') {
    const seconds = Math.max(1, Math.round(endpoint.timeoutMs / 1000));
    return {
      ...base,
      transient: true,
      userText: `the model service did not answer within ${seconds} s`,
      operatorHint: `the model endpoint ${where} did not answer within ${seconds} s; check the endpoint's load or raise OPENAI_TIMEOUT_SECONDS`,
    };
  }
  if (failure.kind === 'connection') {
    const code = systemCode(failure.error);
    const why = code ? (CONNECTION_CODES[code] ?? code) : 'no connection';
    return {
      ...base,
      transient: true,
      userText: `the model service at ${displayHost(endpoint.url)} could not be reached (${why})`,
      operatorHint: `could not connect to the model endpoint ${where} (${code ?? 'no connection'}); check OPENAI_BASE_URL and the network`,
    };
  }
  if (failure.kind === 'status') {
    const { status } = failure;
    const http = { status, retryAfterMs: retryAfterMs(failure.retryAfter) };
    const said = endpointSays(failure, endpoint.apiKey);
    const statusText = `HTTP ${status}${said ? `: ${said}` : ''}`;
    const transient = status === 408 || status === 409 || status === 429 || status >= 500;
    const userText =
      status === 429
        ? `the model service is busy right now (${statusText})`
        : transient
          ? `the model service answered with an error (${statusText})`
          : `the model service refused the request (${statusText})`;
    const check =
      status === 401 || status === 403
        ? 'check OPENAI_API_KEY'
        : status === 404
          ? `check OPENAI_MODEL ("${endpoint.model}"), and OPENAI_BASE_URL (most servers expect it to end in /v1)`
          : status === 429
            ? 'it is rate limiting'
            : transient
              ? "check the endpoint's health"
              : 'check OPENAI_MODEL and OPENAI_MAX_TOKENS';
    return {
      ...http,
      transient,
      userText,
      operatorHint: `the model endpoint ${where} answered ${statusText}; ${check}`,
    };
  }
  const message = withoutSecrets(
    failure.error instanceof Error ? failure.error.message : String(failure.error),
    endpoint.apiKey,
  );
  return {
    ...base,
    transient: false,
    userText: 'the model request failed',
    operatorHint: `the model request to ${where} failed: ${message}`,
  };
}
