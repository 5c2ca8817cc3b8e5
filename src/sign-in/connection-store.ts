import type { McpConnectionRow, McpOauthPendingRow } from '../db/schema.js';

/** A token set as the store keeps it: sealed already (the store never sees a plain token), with what may be shown. */
export interface SealedTokens {
  /** The SDK's OAuthTokens JSON, sealed with the secret box. */
  readonly tokens: string;
  readonly scopes: readonly string[];
  readonly account: string | null;
  /** When the access token stops working (epoch ms), or null when the server gave no lifetime. */
  readonly expiresAt: number | null;
}

/** A sign-in about to be started: the `state` it goes out with and what the callback must find again. */
export interface NewPendingAuthorization {
  readonly state: string;
  readonly principal: string;
  readonly server: string;
  readonly runId: string | null;
  /** The PKCE verifier, sealed. */
  readonly codeVerifier: string;
  readonly scopes: readonly string[];
  readonly expiresAt: number;
}

/**
 * What the callback learns from a `state`: taken now (it is single use, so no second callback gets it), or
 * why not. `expired` and `used` still name the row, so the page can say which server it was for.
 */
export type TakenPending =
  | { readonly outcome: 'taken'; readonly pending: McpOauthPendingRow }
  | { readonly outcome: 'expired' | 'used'; readonly pending: McpOauthPendingRow }
  | { readonly outcome: 'unknown' };

/**
 * People's sign-ins to OAuth MCP servers, Errand's registrations with those servers, and sign-ins under
 * way. Values that are secret arrive sealed: encryption happens above the store (mcp/oauth), so neither
 * database ever holds a plain token.
 *
 * Refreshing once across processes: a refresh token may be single use (rotation), so only the process that
 * claims the connection (`claimRefresh`, a compare-and-swap on its `version`) spends it; the others wait
 * for the version to move on and read the new token.
 */
export interface ConnectionStore {
  /** The person's connection to the server, or null. */
  connection(principal: string, server: string): Promise<McpConnectionRow | null>;
  /** All of a person's connections, by server name (for `/connections`). */
  connectionsOf(principal: string): Promise<McpConnectionRow[]>;
  /**
   * Stores the token set of a completed sign-in (inserts, or replaces the tokens of an existing connection and
   * keeps its `connectedAt`); moves `version` on and drops any refresh claim.
   */
  saveConnection(principal: string, server: string, tokens: SealedTokens): Promise<void>;
  /**
   * Claims the refresh of the connection as it was at `version`, for `holder`, until `until` (epoch ms). False
   * when the version moved on (someone refreshed already) or another holder's claim has not run out.
   */
  claimRefresh(principal: string, server: string, version: number, holder: string, until: number): Promise<boolean>;
  /** Stores the refreshed tokens when `holder` still holds the claim (true), and ends it. */
  finishRefresh(principal: string, server: string, holder: string, tokens: SealedTokens): Promise<boolean>;
  /** Ends `holder`'s claim without new tokens (the refresh failed). */
  releaseRefresh(principal: string, server: string, holder: string): Promise<void>;
  /** Removes the connection (Disconnect, or tokens the server no longer accepts); false when there was none. */
  disconnect(principal: string, server: string): Promise<boolean>;

  /** Errand's sealed client registration with the server's authorization server, or null. */
  client(server: string): Promise<string | null>;
  saveClient(server: string, sealed: string): Promise<void>;
  /** Drops a registration the authorization server no longer knows, so the next sign-in registers again. */
  forgetClient(server: string): Promise<void>;
  /**
   * Stores the server's first registration; false (nothing written) when one is stored already. Two sign-ins that
   * registered at once (in one process or two) keep one client: the other's Connect link must name that one.
   */
  addClient(server: string, sealed: string): Promise<boolean>;

  addPending(pending: NewPendingAuthorization): Promise<void>;
  /** Takes the sign-in started with `state` at `now` (see TakenPending): the one way a `state` is spent. */
  takePending(state: string, now: number): Promise<TakenPending>;
  /** Deletes sign-ins that expired before `before`; returns how many. */
  sweepPending(before: number): Promise<number>;
}
