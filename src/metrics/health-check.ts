import type { AdapterLifecycle } from '../chat/adapter-lifecycle.js';
import type { ConnectionState } from '../chat/working-status.js';

/** One tool server's state as its source reports it (the MCP hub's `status()`). */
export interface ToolServerState {
  readonly name: string;
  readonly state: string;
  readonly reason: string | null;
}

/** Whether `run_code` can run here (a bubblewrap sandbox started at start-up), or is switched off. */
export type SandboxStatus = 'available' | 'unavailable' | 'disabled';

/** The body of `/healthz`: healthy when the database is writable and every platform is connected. */
export interface HealthReport {
  readonly status: 'ok' | 'unhealthy';
  /** What is wrong, one sentence each; empty when healthy. */
  readonly problems: readonly string[];
  readonly database: { readonly writable: boolean; readonly detail?: string };
  readonly platforms: Readonly<Record<string, ConnectionState>>;
  /** Informational: an MCP server that is down makes its tools fail, not the bot unhealthy. */
  readonly mcp?: readonly ToolServerState[];
  /** Informational: without a sandbox `run_code` is not offered; the bot is healthy all the same. */
  readonly sandbox?: SandboxStatus;
}

/** The one question health asks of the database (the Store's probe answers it). */
export interface WritableCheck {
  /** Null when the database accepts writes now, else why not. */
  writeProblem(): Promise<string | null>;
}

export interface HealthSources {
  database: WritableCheck;
  adapters: ReadonlyMap<string, Pick<AdapterLifecycle, 'platform' | 'connectionState'>>;
  toolServers?: () => readonly ToolServerState[];
  sandbox?: () => SandboxStatus;
}

/** Runs the health checks now (a rolled-back write and each adapter's connection state). */
export async function checkHealth(sources: HealthSources): Promise<HealthReport> {
  const problems: string[] = [];
  const writeProblem = await sources.database.writeProblem();
  if (writeProblem) problems.push(writeProblem);
  const platforms: Record<string, ConnectionState> = {};
  for (const adapter of sources.adapters.values()) {
    const state = adapter.connectionState();
    platforms[adapter.platform] = state;
    if (!state.connected)
      problems.push(`${adapter.platform} is not connected${state.detail ? ` (${state.detail})` : ''}`);
  }
  const mcp = sources.toolServers?.();
  return {
    status: problems.length === 0 ? 'ok' : 'unhealthy',
    problems,
    database: writeProblem ? { writable: false, detail: writeProblem } : { writable: true },
    platforms,
    ...(mcp ? { mcp } : {}),
    ...(sources.sandbox ? { sandbox: sources.sandbox() } : {}),
  };
}
