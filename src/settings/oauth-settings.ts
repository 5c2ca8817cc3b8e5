import { z } from 'zod';

/**
 * A `url` server's `auth` key: `"oauth"`, or `{ "type": "oauth", "scopes": [...], "clientId": "…", "clientSecret": "…" }`.
 * Normalised to one shape so later code never asks which spelling the operator used.
 */
export const oauthAuthSchema = z
  .union(
    [
      z.literal('oauth').transform(() => ({})),
      z.strictObject({
        type: z.literal('oauth', { message: 'expected "oauth"' }),
        /** Scopes to ask for when the server names none (its 401 `scope`, then `scopes_supported` come first). */
        scopes: z.array(z.string().trim().min(1, 'scope names must not be empty')).optional(),
        /** A client registered by hand with the authorization server; else CIMD or dynamic registration. */
        clientId: z.string().trim().min(1, 'clientId must not be empty').optional(),
        clientSecret: z.string().min(1, 'clientSecret must not be empty').optional(),
      }),
    ],
    { message: 'expected "oauth" or { "type": "oauth", "scopes": [...], "clientId": "…", "clientSecret": "…" }' },
  )
  .superRefine((a, ctx) => {
    if ('clientSecret' in a && a.clientSecret !== undefined && !('clientId' in a && a.clientId !== undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: ['clientSecret'],
        message: 'a clientSecret needs the clientId it belongs to; add "clientId"',
      });
    }
  })
  .transform((a): OAuthServerSettings => ({
    scopes: 'scopes' in a ? (a.scopes ?? null) : null,
    clientId: 'clientId' in a ? (a.clientId ?? null) : null,
    clientSecret: 'clientSecret' in a ? (a.clientSecret ?? null) : null,
  }));

/** How a server's people sign in (from its `auth` key). */
export interface OAuthServerSettings {
  /** Scopes to ask for when neither the server's 401 nor its metadata names any; null: none configured. */
  readonly scopes: readonly string[] | null;
  /** A pre-registered client id; null: Client ID Metadata Document, else Dynamic Client Registration. */
  readonly clientId: string | null;
  /** The pre-registered client's secret; null: a public client (`none`). */
  readonly clientSecret: string | null;
}
