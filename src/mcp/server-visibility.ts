import type { McpServerSettings } from '../settings/mcp-server-settings.js';

/**
 * Whether a server's results are private to the person a call is made for (DESIGN.md "Private stays private in a
 * shared thread"): as its `visibility` says, else private for a server people sign in to (`auth: oauth`, each call
 * made with their own token) and public for one every call reaches with the same credentials.
 */
export function resultsArePrivate(settings: McpServerSettings): boolean {
  if (settings.visibility !== undefined) return settings.visibility === 'private';
  return 'oauth' in settings && settings.oauth !== null;
}
