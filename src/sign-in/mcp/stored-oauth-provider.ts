import { randomBytes } from 'node:crypto';
import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Clock } from '../../clock.js';
import type { ConnectionStore, SealedTokens } from '../connection-store.js';
import type { SecretBox } from '../../secrets/secret-box.js';
import { accountLabel } from './account-label.js';
import { clientMetadataUrlOf, errandClientMetadata, redirectUrlOf } from './oauth-client-metadata.js';
import { scopeList, type OAuthServer } from './oauth-server.js';
import { openClient, openTokens, sealContext } from './sealed-records.js';

/** How long a Connect link works: DESIGN.md "Signing in to MCP servers". */
export const AUTHORIZATION_TTL_MS = 10 * 60_000;

/** What every provider shares: the store, the box, the clock, PUBLIC_URL, and a discovery cache per server. */
export interface ProviderDeps {
  readonly store: ConnectionStore;
  readonly box: SecretBox;
  readonly clock: Clock;
  readonly publicUrl: string;
  readonly discovery: Map<string, OAuthDiscoveryState>;
}

/**
 * What a provider is for:
 * - `interactive`: start a sign-in when the server asks for one (the stored refresh token is hidden from the SDK, so
 *   it asks the person; refreshing is Errand's, under the cross-process claim). `accessToken` gives the token the
 *   SDK's transport sends, already refreshed when due;
 * - `refresh`: spend the refresh token under the claim `holder` holds, never start a sign-in;
 * - `callback`: exchange the code of the sign-in `state` started, with its verifier.
 */
export type ProviderMode =
  | { readonly kind: 'interactive'; readonly accessToken?: () => Promise<string | null> }
  | { readonly kind: 'refresh'; readonly holder: string }
  | { readonly kind: 'callback'; readonly codeVerifier: string; readonly scopes: readonly string[] };

/** Whether two client registrations are for one authorization server (an unstamped one, saved before stamps, is). */
function sameIssuer(a: OAuthClientInformationMixed, b: OAuthClientInformationMixed): boolean {
  const [x, y] = [a.issuer, b.issuer];
  if (typeof x !== 'string' || typeof y !== 'string') return true;
  return URL.canParse(x) && URL.canParse(y) ? new URL(x).href === new URL(y).href : x === y;
}

/** Thrown inside the SDK's auth() when a refresh did not complete and it would go on to ask the person. */
export class RefreshNotCompleted extends Error {
  constructor() {
    super('the refresh did not complete');
    this.name = 'RefreshNotCompleted';
  }
}

/**
 * Thrown inside the SDK's auth() when another sign-in (in this process or another) registered with the same
 * authorization server at the same time and stored its client first: the sign-in starts again with that client, so
 * its Connect link names the client its code will be exchanged under.
 */
export class ClientRegisteredMeanwhile extends Error {
  constructor(server: string) {
    super(`another sign-in registered Errand with the authorization server of ${server} first`);
    this.name = 'ClientRegisteredMeanwhile';
  }
}

/**
 * The SDK's OAuthClientProvider for one person and one server, backed by Errand's database: tokens and the
 * client registration are sealed with ERRAND_SECRET_KEY, a sign-in under way is a pending row keyed by its
 * `state` (so the callback may land on any process, after a restart). Built per use; holds no token itself.
 */
export class StoredOAuthProvider implements OAuthClientProvider {
  /** Where the person must go to sign in, once the SDK asked for it (auth() answered REDIRECT). */
  authorizationUrl: URL | null = null;
  private pendingState: string | null = null;
  private pendingVerifier: string | null = null;

  constructor(
    private readonly deps: ProviderDeps,
    readonly server: OAuthServer,
    readonly principal: string,
    readonly runId: string | null,
    private readonly mode: ProviderMode,
  ) {}

  get redirectUrl(): string {
    return redirectUrlOf(this.deps.publicUrl);
  }

  get clientMetadataUrl(): string | undefined {
    return this.server.settings.clientId === null ? clientMetadataUrlOf(this.deps.publicUrl) : undefined;
  }

  get clientMetadata(): OAuthClientMetadata {
    const scopes = this.server.settings.scopes;
    return {
      ...errandClientMetadata(this.deps.publicUrl),
      ...(scopes && scopes.length > 0 ? { scope: scopes.join(' ') } : {}),
    };
  }

  state(): string {
    if (this.mode.kind === 'refresh') throw new RefreshNotCompleted();
    this.pendingState = randomBytes(32).toString('base64url');
    return this.pendingState;
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    const { clientId, clientSecret } = this.server.settings;
    if (clientId !== null)
      return { client_id: clientId, ...(clientSecret !== null ? { client_secret: clientSecret } : {}) };
    const sealed = await this.deps.store.client(this.server.name);
    return sealed === null ? undefined : (openClient(this.deps.box, sealed, this.server.name) ?? undefined);
  }

  async saveClientInformation(info: OAuthClientInformationMixed): Promise<void> {
    // A configured client lives in the configuration file; only registrations Errand obtained are stored.
    if (this.server.settings.clientId !== null) return;
    const sealed = this.deps.box.seal(JSON.stringify(info), sealContext.client(this.server.name));
    if (await this.deps.store.addClient(this.server.name, sealed)) return;
    const stored = await this.clientInformation();
    // Two registrations at once: the one stored first is the server's client (last-writer-wins left one person's
    // link naming a client whose code was then exchanged under the other's: invalid_grant).
    if (stored !== undefined && stored.client_id !== info.client_id && sameIssuer(stored, info))
      throw new ClientRegisteredMeanwhile(this.server.name);
    // The same client (the SDK stamping it with its issuer), or one of another authorization server or key: replace it.
    await this.deps.store.saveClient(this.server.name, sealed);
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    if (this.mode.kind === 'interactive') {
      const accessToken = this.mode.accessToken ? await this.mode.accessToken() : null;
      return accessToken === null ? undefined : { access_token: accessToken, token_type: 'Bearer' };
    }
    if (this.mode.kind !== 'refresh') return undefined;
    const row = await this.deps.store.connection(this.principal, this.server.name);
    return (row && openTokens(this.deps.box, row.tokens, this.principal, this.server.name)) ?? undefined;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    const granted = scopeList(tokens.scope);
    const scopes =
      granted.length > 0 ? granted : this.mode.kind === 'callback' ? [...this.mode.scopes] : await this.storedScopes();
    const sealed: SealedTokens = {
      tokens: this.deps.box.seal(JSON.stringify(tokens), sealContext.tokens(this.principal, this.server.name)),
      scopes,
      account: accountLabel(tokens) ?? (await this.storedAccount()),
      expiresAt: typeof tokens.expires_in === 'number' ? this.deps.clock.now() + tokens.expires_in * 1000 : null,
    };
    if (this.mode.kind === 'refresh')
      await this.deps.store.finishRefresh(this.principal, this.server.name, this.mode.holder, sealed);
    else await this.deps.store.saveConnection(this.principal, this.server.name, sealed);
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.pendingVerifier = codeVerifier;
  }

  codeVerifier(): string {
    if (this.mode.kind !== 'callback') throw new Error('no sign-in under way for this provider');
    return this.mode.codeVerifier;
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    const state = this.pendingState ?? url.searchParams.get('state');
    if (state === null || this.pendingVerifier === null)
      throw new Error('the SDK asked for a redirect before giving a state and a verifier');
    await this.deps.store.addPending({
      state,
      principal: this.principal,
      server: this.server.name,
      runId: this.runId,
      codeVerifier: this.deps.box.seal(this.pendingVerifier, sealContext.verifier(state)),
      scopes: scopeList(url.searchParams.get('scope')),
      expiresAt: this.deps.clock.now() + AUTHORIZATION_TTL_MS,
    });
    this.authorizationUrl = url;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'all' || scope === 'client') await this.deps.store.forgetClient(this.server.name);
    // A failed code exchange says nothing about the connection the person may already have (a step-up): keep it.
    if ((scope === 'all' || scope === 'tokens') && this.mode.kind !== 'callback')
      await this.deps.store.disconnect(this.principal, this.server.name);
    if (scope === 'all' || scope === 'discovery') this.deps.discovery.delete(this.server.name);
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.deps.discovery.set(this.server.name, state);
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.deps.discovery.get(this.server.name);
  }

  private async storedScopes(): Promise<string[]> {
    return (await this.deps.store.connection(this.principal, this.server.name))?.scopes ?? [];
  }

  private async storedAccount(): Promise<string | null> {
    return (await this.deps.store.connection(this.principal, this.server.name))?.account ?? null;
  }
}
