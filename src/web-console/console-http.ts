import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Html } from './html.js';

/**
 * What every console response carries: no caching, no framing, no referrer (a sign-in link's path is a secret),
 * and a Content Security Policy that allows only the console's own scripts and stylesheet.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
};

export function sendHtml(
  res: ServerResponse,
  status: number,
  body: Html,
  extra: Record<string, string | string[]> = {},
): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': 'text/html; charset=utf-8', ...extra }).end(body.text);
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res
    .writeHead(status, { ...SECURITY_HEADERS, 'content-type': 'application/json; charset=utf-8' })
    .end(JSON.stringify(body));
}

/** POST → GET: back to a page once a change is made (reloading it does not repeat the change). */
export function redirect(res: ServerResponse, location: string, extra: Record<string, string | string[]> = {}): void {
  res.writeHead(303, { ...SECURITY_HEADERS, location, ...extra }).end();
}

/** Most a form may send: the longest field is a schedule's prompt. */
const MAX_FORM_BYTES = 64 * 1024;

/** Reads an `application/x-www-form-urlencoded` body; null when it is too large or of another type. */
export async function readForm(req: IncomingMessage): Promise<URLSearchParams | null> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') return null;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const b = chunk as Buffer;
    size += b.length;
    if (size > MAX_FORM_BYTES) return null;
    chunks.push(b);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}
