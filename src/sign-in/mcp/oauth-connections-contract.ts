import { ErrandError } from '../../errors.js';
import type { CallbackOutcome } from './authorization-callback.js';
import type { StoredOAuthProvider } from './stored-oauth-provider.js';

/**
 * What a tool call can do for its principal: send this token, or first have the person open this URL (a
 * Connect button), or give up for now with a reason the model may read (no secret, no token in it).
 */
export type TokenOutcome =
  | { readonly kind: 'token'; readonly accessToken: string }
  | { readonly kind: 'authorize'; readonly url: string }
  | { readonly kind: 'unavailable'; readonly reason: string };

/** A connection as `/connections` shows it: never a token. */
export interface ConnectionSummary {
  readonly server: string;
  readonly account: string | null;
  readonly scopes: readonly string[];
  readonly since: number;
}

/** The per-person OAuth connections of every `auth: "oauth"` server: the one entry point the MCP wiring needs. */
export interface OAuthConnections {
  /**
   * The principal's access token for the server, refreshed first when it ran out (once across processes), or the
   * URL of a new sign-in (bound to `runId`, single use, 10 minutes). `scope` (space-separated) asks for at least
   * those scopes: a connection without them is a step-up, a new sign-in with the scopes it has plus these.
   */
  tokenFor(
    principal: string,
    server: string,
    options?: { runId?: string | null; scope?: string },
  ): Promise<TokenOutcome>;
  /**
   * What to do about a server's 401 or 403 answer to a call made with the principal's token: a 401 starts a new
   * sign-in from its `resource_metadata` and `scope`; a 403 `insufficient_scope` a step-up with its `scope`.
   */
  answerChallenge(principal: string, server: string, response: Response, runId?: string | null): Promise<TokenOutcome>;
  /**
   * An OAuthClientProvider for the SDK's StreamableHTTPClientTransport acting for `principal`: it sends the
   * principal's token (refreshed here, under the claim), and when the server asks for a sign-in (401, or 403
   * `insufficient_scope`) the transport throws UnauthorizedError and `authorizationUrl` holds the Connect link.
   * A connection whose refresh cannot reach the authorization server fails the call with SignInUnavailableError.
   */
  authProvider(principal: string, server: string, runId?: string | null): StoredOAuthProvider;
  /** The browser's return to `/oauth/callback`: exchanges the code and stores the tokens, or says why not. */
  completeAuthorization(query: URLSearchParams): Promise<CallbackOutcome>;
  connectionsOf(principal: string): Promise<ConnectionSummary[]>;
  /** Forgets the principal's tokens for the server; false when there were none. */
  disconnect(principal: string, server: string): Promise<boolean>;
  /** Whether `server` is an OAuth server here. */
  has(server: string): boolean;
}

/**
 * Thrown by the transport provider's `tokens()` when the principal is connected but their token cannot be
 * refreshed right now (the authorization server is unreachable): the call fails with this reason instead of
 * asking the person to sign in again, which would not help. `message` is safe to show the model.
 */
export class SignInUnavailableError extends ErrandError {
  constructor(message: string) {
    super('sign_in_unavailable', message);
  }
}
