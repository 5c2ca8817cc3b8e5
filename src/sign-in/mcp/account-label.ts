import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

const LABEL_KEYS = ['account', 'username', 'email', 'preferred_username', 'login', 'name'] as const;

function labelIn(record: Record<string, unknown>): string | null {
  for (const key of LABEL_KEYS) {
    const v = record[key];
    if (typeof v === 'string' && v.trim() !== '' && v.length <= 200) return v.trim();
  }
  return null;
}

/** The claims of an OpenID Connect id_token, read without checking its signature: only ever shown, never trusted. */
function idTokenClaims(idToken: unknown): Record<string, unknown> | null {
  if (typeof idToken !== 'string') return null;
  const payload = idToken.split('.')[1];
  if (payload === undefined) return null;
  try {
    const claims: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    return claims !== null && typeof claims === 'object' ? (claims as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * The account a person signed in with, when the token response tells it (a field some servers add, or the
 * id_token's claims), so `/connections` can say "linear — ana@example.com". Null when it does not.
 */
export function accountLabel(tokens: OAuthTokens): string | null {
  const record = tokens as unknown as Record<string, unknown>;
  return labelIn(record) ?? labelIn(idTokenClaims(record.id_token) ?? {});
}
