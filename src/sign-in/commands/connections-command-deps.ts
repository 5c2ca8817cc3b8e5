import type { ConnectionsCommandDeps } from './connections-command.js';
import type { Config } from '../../config.js';
import { oauthServersOf, type OAuthRuntime } from '../mcp/oauth-setup.js';

/** What a tool source is told when a person disconnects (the MCP hub closes their session to the server). */
export interface DisconnectListener {
  disconnected?(principal: string, server: string): Promise<void>;
}

/**
 * `/connections` over the running OAuth service. The service starts with the app (`runtime()` is null before, and
 * always when no server uses OAuth), so every call reads it then; a disconnect also closes the person's session.
 */
export function connectionsCommandDeps(
  config: Pick<Config, 'file'>,
  runtime: () => OAuthRuntime | null,
  tools?: DisconnectListener,
): ConnectionsCommandDeps {
  const names = oauthServersOf(config.file.settings.mcpServers).map((s) => s.name);
  return {
    servers: () => (runtime() ? names : []),
    list: async (principal) => (await runtime()?.connections.connectionsOf(principal)) ?? [],
    async disconnect(principal, server) {
      const gone = (await runtime()?.connections.disconnect(principal, server)) ?? false;
      await tools?.disconnected?.(principal, server);
      return gone;
    },
  };
}
