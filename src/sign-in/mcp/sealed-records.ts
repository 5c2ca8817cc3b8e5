import {
  OAuthClientInformationFullSchema,
  OAuthTokensSchema,
  type OAuthClientInformationMixed,
  type OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { SecretBox } from '../../secrets/secret-box.js';

/**
 * The sealing contexts: each secret is bound to the row it belongs to, so a sealed value copied into another
 * person's row (or another server's) does not open there.
 */
export const sealContext = {
  tokens: (principal: string, server: string) => `mcp_connections:${principal}:${server}`,
  client: (server: string) => `mcp_oauth_clients:${server}`,
  verifier: (state: string) => `mcp_oauth_pending:${state}`,
};

/** What was sealed from JSON, parsed back through `schema`; null when it does not open or no longer parses. */
function openJson<T>(box: SecretBox, sealed: string, context: string, parse: (v: unknown) => T | null): T | null {
  const text = box.open(sealed, context);
  if (text === null) return null;
  try {
    return parse(JSON.parse(text));
  } catch {
    return null;
  }
}

/** A stored token set, or null (sealed with another key, or not a token set). Extra fields (issuer, account hints) are kept. */
export function openTokens(box: SecretBox, sealed: string, principal: string, server: string): OAuthTokens | null {
  return openJson(box, sealed, sealContext.tokens(principal, server), (v) => {
    const parsed = OAuthTokensSchema.safeParse(v);
    return parsed.success ? ({ ...(v as object), ...parsed.data } as OAuthTokens) : null;
  });
}

/** A stored client registration, or null. */
export function openClient(box: SecretBox, sealed: string, server: string): OAuthClientInformationMixed | null {
  return openJson(box, sealed, sealContext.client(server), (v) => {
    const parsed = OAuthClientInformationFullSchema.partial({ redirect_uris: true }).safeParse(v);
    return parsed.success ? (parsed.data as OAuthClientInformationMixed) : null;
  });
}
