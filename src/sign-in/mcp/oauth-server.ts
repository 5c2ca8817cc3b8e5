import type { OAuthServerSettings } from '../../settings/oauth-settings.js';

/** One MCP server whose people sign in with OAuth: its name in the configuration, its URL, its `auth` settings. */
export interface OAuthServer {
  readonly name: string;
  readonly url: string;
  readonly settings: OAuthServerSettings;
  /** Rewrites text that may quote the server's real URL before it is logged (see mcp/scrubbed-error.ts); default: as is. */
  readonly scrub?: (text: string) => string;
}

/** A scope string (space-separated, as OAuth writes it) as a list without repeats. */
export function scopeList(scope: string | null | undefined): string[] {
  return [...new Set((scope ?? '').split(' ').filter((s) => s !== ''))];
}

/** Whether `granted` holds every scope of `wanted`. */
export function coversScopes(granted: readonly string[], wanted: readonly string[]): boolean {
  return wanted.every((s) => granted.includes(s));
}
