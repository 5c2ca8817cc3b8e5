import type { Logger } from 'pino';
import type { ConversationRef } from '../chat/conversation-ref.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ExternalTool, SignInNeeded } from '../agent/tools/external-tool.js';
import type { ToolContext, ToolResult } from '../agent/tools/tool.js';
import type { McpServerSettings } from '../settings/mcp-server-settings.js';
import { toolNeedsApproval } from './mcp-tool-filter.js';
import { qualifiedToolName } from './mcp-tool-names.js';

/** What the catalogue needs of a server: a shared connection (McpServerConnection) or per-person sessions (OAuthToolServer). */
export interface CatalogConnection {
  readonly tools: readonly Tool[];
  readonly approval: McpServerSettings['approval'];
  call(
    toolName: string,
    exposedName: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    context: ToolContext,
  ): Promise<ToolResult | SignInNeeded>;
}

/** A server as the catalogue sees it: its name, its connection and its `channels` filter. */
export interface CatalogServer {
  readonly name: string;
  readonly connection: CatalogConnection;
  /** `platform:channel` keys where its tools are offered; null = everywhere. */
  readonly channels: ReadonlySet<string> | null;
  /** Its results are private to the person a call is made for (resultsArePrivate in mcp-hub.ts); absent: public. */
  readonly privateResults?: boolean;
}

interface CatalogEntry {
  readonly tool: ExternalTool;
  readonly channels: ReadonlySet<string> | null;
}

/**
 * The tools of every server under the names the model sees, rebuilt whenever a server's list changes.
 * Two tools that end up with the same name (after sanitising or truncation) keep the first and log an
 * error naming both, once — a config problem for a person to fix, not something to guess around.
 */
export class McpToolCatalog {
  private entries: readonly CatalogEntry[] = [];
  private readonly reportedClashes = new Set<string>();

  constructor(
    private readonly servers: readonly CatalogServer[],
    private readonly logger: Logger,
  ) {}

  rebuild(): void {
    const byName = new Map<string, string>();
    const entries: CatalogEntry[] = [];
    for (const server of this.servers) {
      const { connection } = server;
      for (const tool of connection.tools) {
        const name = qualifiedToolName(server.name, tool.name);
        const origin = `"${tool.name}" of server "${server.name}"`;
        const first = byName.get(name);
        if (first !== undefined) {
          this.reportClash(name, first, origin);
          continue;
        }
        byName.set(name, origin);
        const toolName = tool.name;
        entries.push({
          channels: server.channels,
          tool: {
            name,
            description: tool.description ?? tool.title ?? `The tool "${toolName}" of the MCP server "${server.name}".`,
            inputSchema: tool.inputSchema as Record<string, unknown>,
            needsApproval: toolNeedsApproval(connection.approval, tool),
            ...(server.privateResults ? { privateResults: true } : {}),
            call: (args, context, signal) => connection.call(toolName, name, args, signal, context),
          },
        });
      }
    }
    this.entries = entries;
  }

  /** The tools offered in this conversation: servers with `channels` only in the listed channels. */
  toolsFor(conversation: ConversationRef): readonly ExternalTool[] {
    const key = `${conversation.platform}:${conversation.channel}`;
    return this.entries.filter((e) => e.channels === null || e.channels.has(key)).map((e) => e.tool);
  }

  private reportClash(name: string, first: string, second: string): void {
    const key = `${name}\n${first}\n${second}`;
    if (this.reportedClashes.has(key)) return;
    this.reportedClashes.add(key);
    this.logger.error(
      { tool: name },
      `MCP tools ${first} and ${second} both become "${name}"; keeping the first. Rename one on the server, or hide one with "disabledTools".`,
    );
  }
}
