/** Who a link or session belongs to: `platform:user`, and their Discord roles as of the `/admin` that made it. */
export interface AdminPrincipal {
  readonly person: string;
  readonly roles: readonly string[] | null;
}

/** How taking a sign-in link went: taken now (single use), or why not. */
export type TakenLink =
  | { readonly outcome: 'taken'; readonly principal: AdminPrincipal }
  | { readonly outcome: 'expired' | 'used' | 'unknown' };

/**
 * Sign-in links and sessions of the web console, by the sha256 of their secrets (never the secrets), in the shared
 * database: a link made on one process signs in on any, and a session is good on every process.
 */
export interface AdminSessionStore {
  addLink(tokenHash: string, principal: AdminPrincipal, expiresAt: number, now: number): Promise<void>;
  /** Spends the link at `now` when it is unused and unexpired (one taker wins a race). */
  takeLink(tokenHash: string, now: number): Promise<TakenLink>;
  addSession(tokenHash: string, principal: AdminPrincipal, expiresAt: number, now: number): Promise<void>;
  /** The session's person while it has not expired at `now`, else null. */
  session(tokenHash: string, now: number): Promise<AdminPrincipal | null>;
  endSession(tokenHash: string): Promise<void>;
  /** Deletes links and sessions that expired before `before`; returns how many. */
  sweep(before: number): Promise<number>;
}
