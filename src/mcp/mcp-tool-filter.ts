import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerSettings } from '../settings/mcp-server-settings.js';

export interface FilteredTools {
  readonly tools: readonly Tool[];
  /** Names in `tools` or `disabledTools` the server does not have (typos, renamed tools): worth a warning. */
  readonly unknownNames: readonly string[];
}

/** Applies the server's `tools` allowlist and `disabledTools`, matched against the server's own tool names. */
export function filterServerTools(
  tools: readonly Tool[],
  settings: Pick<McpServerSettings, 'tools' | 'disabledTools'>,
): FilteredTools {
  const allow = settings.tools ? new Set(settings.tools) : null;
  const deny = new Set(settings.disabledTools ?? []);
  const present = new Set(tools.map((t) => t.name));
  const unknownNames = [...(settings.tools ?? []), ...(settings.disabledTools ?? [])].filter((n) => !present.has(n));
  return { tools: tools.filter((t) => (allow === null || allow.has(t.name)) && !deny.has(t.name)), unknownNames };
}

/**
 * Whether a person must approve each call. `auto` trusts only the server's own claim that a tool just reads
 * (`readOnlyHint: true`); an unannotated tool may write, so it asks.
 */
export function toolNeedsApproval(approval: McpServerSettings['approval'], tool: Pick<Tool, 'annotations'>): boolean {
  if (approval === 'always') return true;
  if (approval === 'never') return false;
  return tool.annotations?.readOnlyHint !== true;
}
