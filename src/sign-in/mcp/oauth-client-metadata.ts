import type { OAuthClientMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';

/** Where the authorization server sends the browser back; served by the OAuth web endpoint. */
export const CALLBACK_PATH = '/oauth/callback';
/** Errand's Client ID Metadata Document: its URL is the client id where the authorization server supports that. */
export const CLIENT_METADATA_PATH = '/oauth/client-metadata.json';

/** The redirect URI registered everywhere: `${PUBLIC_URL}/oauth/callback`. */
export function redirectUrlOf(publicUrl: string): string {
  return `${publicUrl}${CALLBACK_PATH}`;
}

/**
 * The Client ID Metadata Document's URL, or undefined when PUBLIC_URL is not https: the MCP specification
 * (and the SDK) only accept an https URL with a path as a client id, so Errand then registers dynamically.
 */
export function clientMetadataUrlOf(publicUrl: string): string | undefined {
  return publicUrl.startsWith('https://') ? `${publicUrl}${CLIENT_METADATA_PATH}` : undefined;
}

/**
 * How Errand describes itself to authorization servers: in a dynamic registration, and as the document at
 * CLIENT_METADATA_PATH (which then also names its own URL as `client_id`). A public client (`none`): the
 * authorization code is protected by PKCE, and no secret has to be kept per server.
 */
export function errandClientMetadata(publicUrl: string): OAuthClientMetadata & { client_id?: string } {
  const clientId = clientMetadataUrlOf(publicUrl);
  return {
    ...(clientId ? { client_id: clientId } : {}),
    client_name: 'Errand',
    client_uri: publicUrl,
    redirect_uris: [redirectUrlOf(publicUrl)],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
}
