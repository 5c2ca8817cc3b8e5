import type { ConversationRef } from '../../chat/conversation-ref.js';
import type { ToolContext, ToolResult } from './tool.js';

/**
 * A tool Errand does not define itself (today: an MCP server's). Its arguments are described by the
 * server's JSON Schema and validated by the server, so the registry only checks they are a JSON object.
 */
export interface ExternalTool {
  /** The name the model sees: `<server>__<tool>`, `[A-Za-z0-9_-]`, at most 64 characters. */
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Record<string, unknown>;
  /** A person must approve each call, unless they chose "Always allow here" in this conversation. */
  readonly needsApproval: boolean;
  /** Never throws for expected failures (timeouts, crashed servers, tool errors): they come back as `{ ok: false }`. */
  call(args: Record<string, unknown>, context: ToolContext, signal: AbortSignal): Promise<ToolResult>;
}

/** Where external tools come from; the list may change between steps (servers restart, lists change). */
export interface ExternalToolSource {
  /** The tools offered in this conversation (per-server `channels` filters apply). */
  toolsFor(conversation: ConversationRef): readonly ExternalTool[];
}
