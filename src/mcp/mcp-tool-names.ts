import { createHash } from 'node:crypto';
import { sanitizeToolNamePart } from '../settings/mcp-server-settings.js';

/** The longest tool name model APIs accept (OpenAI's limit). */
export const MAX_TOOL_NAME_LENGTH = 64;

const HASH_LENGTH = 8;

/**
 * The name the model sees for a server's tool: `<server>__<tool>`, sanitised. Names past 64 characters
 * keep their start and end in a short hash of the whole name, so two long names that differ only at the
 * end stay distinct — and the same tool always gets the same name, across restarts and list changes.
 */
export function qualifiedToolName(server: string, tool: string): string {
  const full = `${sanitizeToolNamePart(server)}__${sanitizeToolNamePart(tool)}`;
  if (full.length <= MAX_TOOL_NAME_LENGTH) return full;
  const hash = createHash('sha256').update(full).digest('hex').slice(0, HASH_LENGTH);
  return `${full.slice(0, MAX_TOOL_NAME_LENGTH - HASH_LENGTH - 1)}_${hash}`;
}
