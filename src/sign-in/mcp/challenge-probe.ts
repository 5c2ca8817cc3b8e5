import { extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';

/** What a server's 401 says about signing in: where its protected resource metadata is, and the scope it wants. */
export interface Challenge {
  readonly resourceMetadataUrl?: URL;
  readonly scope?: string;
}

/**
 * Asks the MCP server, without a token, what it wants (an `initialize` it will refuse): its 401's
 * `WWW-Authenticate` names the resource metadata and the scope, the first steps of discovery. A server that
 * answers otherwise, or not at all, gives no challenge: the SDK then falls back to the well-known locations.
 */
export async function probeChallenge(url: string, fetchFn: FetchLike): Promise<Challenge> {
  try {
    const response = await fetchFn(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: {
          protocolVersion: LATEST_PROTOCOL_VERSION,
          capabilities: {},
          clientInfo: { name: 'errand', version: '0' },
        },
      }),
    });
    await response.body?.cancel();
    if (response.status !== 401) return {};
    const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response);
    return { ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}), ...(scope ? { scope } : {}) };
  } catch {
    return {};
  }
}
