import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { SSEClientTransport, SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** The MCP SDK's client and its transports (with the errors they throw). */
export interface ClientSdk {
  readonly Client: typeof Client;
  readonly SSEClientTransport: typeof SSEClientTransport;
  readonly SseError: typeof SseError;
  readonly StdioClientTransport: typeof StdioClientTransport;
  readonly StreamableHTTPClientTransport: typeof StreamableHTTPClientTransport;
  readonly StreamableHTTPError: typeof StreamableHTTPError;
}

let loaded: ClientSdk | null = null;
let loading: Promise<ClientSdk> | null = null;

/**
 * Loads the client and transports at the first connection to an MCP server. They hold about 9 MB of a
 * process's memory (the client brings ajv, the transports their streams and process spawning), which an
 * installation with no MCP server, or none connected yet, does not pay.
 */
export function loadClientSdk(): Promise<ClientSdk> {
  loading ??= Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/sse.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
  ]).then(([index, sse, stdio, http]) => {
    loaded = {
      Client: index.Client,
      SSEClientTransport: sse.SSEClientTransport,
      SseError: sse.SseError,
      StdioClientTransport: stdio.StdioClientTransport,
      StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
      StreamableHTTPError: http.StreamableHTTPError,
    };
    return loaded;
  });
  return loading;
}

/** The client SDK once a connection loaded it; null before (when none of its transports can have thrown). */
export function loadedClientSdk(): ClientSdk | null {
  return loaded;
}
