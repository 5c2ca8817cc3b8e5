import type { McpServerSettings } from '../settings/mcp-server-settings.js';
import { scrubUrl } from '../settings/shown-url.js';

/** Rewrites free text so it never holds a server's real URL or a secret part of it. */
export type TextScrubber = (text: string) => string;

/**
 * The scrubber for one server's texts: for an HTTP server its real URL becomes the shown form and the URL's
 * secret parts `•••` (SDK, fetch and server error messages quote them); a stdio server has no URL to hide.
 */
export function scrubberFor(settings: McpServerSettings): TextScrubber {
  return 'url' in settings ? (text) => scrubUrl(text, settings.shownUrl) : (text) => text;
}

const MAX_CAUSES = 4;

/**
 * A copy of `err` that is safe to log: name, message, stack and causes scrubbed; other own fields (an SDK
 * error's HTTP event, a response body) left out, except a string or numeric `code`.
 */
export function scrubbedError(err: unknown, scrub: TextScrubber, depth = 0): Error {
  if (!(err instanceof Error)) return new Error(scrub(String(err)));
  const copy = new Error(scrub(err.message));
  copy.name = err.name;
  copy.stack = err.stack === undefined ? undefined : scrub(err.stack);
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' || typeof code === 'number') Object.assign(copy, { code });
  if (err.cause !== undefined && depth < MAX_CAUSES) copy.cause = scrubbedError(err.cause, scrub, depth + 1);
  return copy;
}
