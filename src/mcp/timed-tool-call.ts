import type { ToolContext, ToolResult } from '../agent/tools/tool.js';
import { toToolResult } from './mcp-tool-result.js';
import type { McpSession } from './mcp-session.js';
import { pausableDeadline, type Clock } from '../clock.js';

/** The server's limits a call runs under. */
export interface CallLimits {
  readonly clock: Clock;
  readonly timeoutSeconds: number;
  readonly maxResultChars: number;
}

/** The call as a question from its server sees it: which server and tool, for whom (absent: questions are refused). */
export interface CallOrigin {
  readonly server: string;
  readonly exposedName: string;
  readonly context: ToolContext;
}

/** What the model reads when a call outlived the server's `timeoutSeconds`. */
export const timedOutError = (exposedName: string, timeoutSeconds: number): ToolResult => ({
  ok: false,
  error: `${exposedName} timed out after ${timeoutSeconds} s. Try a smaller request, or do without it.`,
});

/** An MCP progress notification as a few words for the person waiting: "3/10 indexing", "40 %", "indexing". */
export function progressText(p: {
  progress: number;
  total?: number | undefined;
  message?: string | undefined;
}): string {
  const amount = p.total !== undefined && p.total > 0 ? `${p.progress}/${p.total}` : `${p.progress}`;
  return p.message ? `${amount} ${p.message}` : amount;
}

/** What the model reads when the run was stopped during a call. */
export const cancelledError = (exposedName: string): ToolResult => ({
  ok: false,
  error: `${exposedName} was cancelled: the run was stopped.`,
});

/**
 * One tool call on a session, bounded by the server's timeout and the run's signal, its result cut for the
 * model. Shared by the servers everyone uses through one session and the per-person OAuth servers; each
 * tells the model what a failure means for it (`failed` hears whether the timeout passed). While a person answers a
 * question the server asked during the call (`origin` given), the timeout does not count. The server's progress
 * notifications (the call carries a progressToken when the run listens: `origin.context.reportProgress`) are passed on as text.
 */
export async function timedToolCall(
  session: McpSession,
  toolName: string,
  args: Record<string, unknown>,
  signal: AbortSignal,
  limits: CallLimits,
  failed: (err: unknown, timedOut: AbortSignal) => Promise<ToolResult>,
  origin?: CallOrigin,
): Promise<ToolResult> {
  const timeoutMs = limits.timeoutSeconds * 1000;
  const timeout = new AbortController();
  const deadline = pausableDeadline(limits.clock, timeoutMs, () => timeout.abort());
  const callSignal = AbortSignal.any([signal, timeout.signal]);
  const scope = origin ? { ...origin, signal: callSignal, hold: deadline.hold } : undefined;
  try {
    const reportProgress = origin?.context.reportProgress;
    const onProgress = reportProgress
      ? (p: Parameters<typeof progressText>[0]) => reportProgress(progressText(p))
      : undefined;
    const result = await session.callTool(toolName, args, {
      signal: callSignal,
      timeoutMs,
      ...(scope ? { scope } : {}),
      ...(onProgress ? { onProgress } : {}),
    });
    return toToolResult(result, limits.maxResultChars);
  } catch (err) {
    return await failed(err, timeout.signal);
  } finally {
    deadline.clear();
  }
}
