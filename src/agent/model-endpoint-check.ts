import { z } from 'zod';

/** OpenAI's own endpoint, used when OPENAI_BASE_URL is unset (as the SDK does). */
export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';

export interface ModelEndpointCheckOptions {
  baseUrl: string | undefined;
  apiKey: string | undefined;
  model: string;
  /** Injected so tests and callers decide about the network. */
  fetch: typeof globalThis.fetch;
  timeoutMs?: number;
}

const modelListSchema = z.object({ data: z.array(z.object({ id: z.string() })) });

function networkCode(err: unknown): string {
  let e: unknown = err;
  for (let depth = 0; e instanceof Error && depth < 5; depth++, e = e.cause) {
    const code: unknown = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return err instanceof Error ? err.message : String(err);
}

/**
 * Asks the model endpoint for its model list once at start-up and says what looks wrong, so a
 * misconfigured OPENAI_BASE_URL shows up in the log before the first user waits on it (the
 * classic: a base URL without `/v1` answers 404 for every request). Returns null when all looks
 * fine, else one sentence for the operator. Never throws: a failed check is a warning, not fatal.
 */
export async function checkModelEndpoint(options: ModelEndpointCheckOptions): Promise<string | null> {
  const base = (options.baseUrl ?? DEFAULT_OPENAI_BASE_URL).replace(/\/+$/, '');
  const url = `${base}/models`;
  let response: Response;
  try {
    response = await options.fetch(url, {
      headers: { accept: 'application/json', ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}) },
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
    });
  } catch (err) {
    return `Could not reach the model endpoint at ${base} (${networkCode(err)}); check OPENAI_BASE_URL and the network.`;
  }
  if (!response.ok) await response.body?.cancel().catch(() => undefined);
  if (response.status === 401 || response.status === 403)
    return `The model endpoint ${base} rejected the API key (HTTP ${response.status}); check OPENAI_API_KEY.`;
  if (response.status === 404) {
    return /\/v1$/.test(base)
      ? `The model endpoint answered 404 for ${url}; check OPENAI_BASE_URL (it may not be an OpenAI-compatible API).`
      : `The model endpoint answered 404 for ${url}; OPENAI_BASE_URL probably lacks /v1 (try ${base}/v1).`;
  }
  if (!response.ok) return `The model endpoint ${url} answered HTTP ${response.status}; check OPENAI_BASE_URL.`;
  const parsed = modelListSchema.safeParse(await response.json().catch(() => null));
  if (!parsed.success)
    return `${url} did not answer with an OpenAI model list; check that OPENAI_BASE_URL points at an OpenAI-compatible API.`;
  const ids = parsed.data.data.map((m) => m.id);
  if (ids.length > 0 && !ids.includes(options.model)) {
    const some = ids.slice(0, 5).join(', ');
    return `The model endpoint ${base} does not list model "${options.model}" (it lists ${ids.length}: ${some}${ids.length > 5 ? ', …' : ''}); check OPENAI_MODEL.`;
  }
  return null;
}
