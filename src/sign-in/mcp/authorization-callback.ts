import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { OAuthServer } from './oauth-server.js';
import { sealContext } from './sealed-records.js';
import { StoredOAuthProvider, type ProviderDeps } from './stored-oauth-provider.js';

/** Whose sign-in a callback was, once its `state` is known. */
interface SignIn {
  readonly principal: string;
  readonly server: string;
  readonly runId: string | null;
}

/**
 * What the browser's return to `/oauth/callback` came to. Only `connected` stored anything. `denied`: the
 * person said no; `expired`/`used`: the link was older than 10 minutes or opened before; `unknown`: no such
 * sign-in (a wrong or forged `state`); `failed`: the authorization server answered with an error.
 */
export type CallbackOutcome =
  | ({ readonly kind: 'connected' } & SignIn)
  | ({ readonly kind: 'denied' | 'expired' | 'used' | 'failed' } & SignIn)
  | { readonly kind: 'unknown' };

interface CallbackDeps {
  readonly deps: ProviderDeps;
  readonly servers: ReadonlyMap<string, OAuthServer>;
  readonly fetchFn: FetchLike;
  readonly report: (server: OAuthServer, what: string, err: unknown) => void;
}

/**
 * Spends the callback's `state` (single use, whatever comes next), then exchanges the code through the SDK's
 * auth() with the verifier saved when the sign-in started, which stores the tokens. Any process can do this:
 * everything it needs is in the database.
 */
export async function completeAuthorization(
  { deps, servers, fetchFn, report }: CallbackDeps,
  query: URLSearchParams,
): Promise<CallbackOutcome> {
  const state = query.get('state');
  if (!state) return { kind: 'unknown' };
  const taken = await deps.store.takePending(state, deps.clock.now());
  if (taken.outcome === 'unknown') return { kind: 'unknown' };
  const { pending } = taken;
  const signIn: SignIn = { principal: pending.principal, server: pending.server, runId: pending.runId };
  if (taken.outcome !== 'taken') return { kind: taken.outcome, ...signIn };
  const server = servers.get(pending.server);
  if (!server) return { kind: 'unknown' };
  const error = query.get('error');
  if (error !== null) {
    if (error !== 'access_denied')
      report(server, `the authorization server answered the sign-in with "${error.slice(0, 60)}"`, new Error(error));
    return { kind: error === 'access_denied' ? 'denied' : 'failed', ...signIn };
  }
  const code = query.get('code');
  const codeVerifier = deps.box.open(pending.codeVerifier, sealContext.verifier(state));
  if (!code || codeVerifier === null) return { kind: 'failed', ...signIn };
  const provider = new StoredOAuthProvider(deps, server, pending.principal, pending.runId, {
    kind: 'callback',
    codeVerifier,
    scopes: pending.scopes,
  });
  try {
    const result = await auth(provider, { serverUrl: server.url, authorizationCode: code, fetchFn });
    return result === 'AUTHORIZED' ? { kind: 'connected', ...signIn } : { kind: 'failed', ...signIn };
  } catch (err) {
    report(server, 'exchanging a sign-in code failed', err);
    return { kind: 'failed', ...signIn };
  }
}
