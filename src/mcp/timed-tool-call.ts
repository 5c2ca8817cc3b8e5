import type { ToolResult } from '../agent/tools/tool.js';
import type { Clock } from '../clock.js';
import { toToolResult } from './mcp-tool-result.js';
import type { McpSession } from './mcp-session.js';

/** The server's limits a call runs under. */
export interface CallLimits {
  readonly clock: Clock;
  readonly timeoutSeconds: number;
  readonly maxResultChars: number;
}

/** What the model reads when a call outlived the server's `timeoutSeconds`. */
export const timedOutError = (exposedName: string, timeoutSeconds: number): ToolResult => ({
  ok: false,
  error: `${exposedName} timed out after ${timeoutSeconds} s. Try a smaller request, or do without it.`,
});

/** An MCP progress notification as a few words for the person waiting: "3/10 indexing", "40 %", "indexing". */
export function progressText(p: { progress: number; total?: number | undefined; message?: string | undefined }): string {
  const amount = p.total !== undefined && p.total > 0 ? `${p.progress}/${p.total}` : `${p.progress}`;
  return p.message ? `${amount} ${p.message}` : amount;
}

/** What the model reads when the run was stopped during a call. */
export const cancelledError = (exposedName: string): ToolResult => ({ ok: false, error: `${exposedName} was cancelled: the run was stopped.` });

/**
 * One tool call on a session, bounded by the server's timeout and the run's signal, its result cut for the
 * model; the server's progress notifications (the call carries a progressToken when `reportProgress` is given) are passed on as text. Shared by the servers everyone uses through one session and the per-person OAuth servers; each
 * tells the model what a failure means for it (`failed` hears whether the timeout passed).
 */
export async function timedToolCall(
  session: McpSession,
  toolName: string,
  args: Record<string, unknown>,
  signal: AbortSignal,
  limits: CallLimits,
  failed: (err: unknown, timedOut: AbortSignal) => Promise<ToolResult>,
  reportProgress?: (text: string) => void,
): Promise<ToolResult> {
  const timeoutMs = limits.timeoutSeconds * 1000;
  const timeout = new AbortController();
  const timer = limits.clock.setTimer(() => timeout.abort(), timeoutMs);
  try {
    const onProgress = reportProgress ? (p: Parameters<typeof progressText>[0]) => reportProgress(progressText(p)) : undefined;
    const result = await session.callTool(toolName, args, { signal: AbortSignal.any([signal, timeout.signal]), timeoutMs, ...(onProgress ? { onProgress } : {}) });
    return toToolResult(result, limits.maxResultChars);
  } catch (err) {
    return await failed(err, timeout.signal);
  } finally {
    limits.clock.clearTimer(timer);
  }
}
