import type { Tracing } from '../../telemetry/tracing.js';
import type { ToolRegistry } from './tool-registry.js';

/** The MCP server a tool the model sees as `<server>__<tool>` belongs to (mcp-tool-names.ts), or null. */
export function mcpServerOf(toolName: string): string | null {
  const at = toolName.indexOf('__');
  return at > 0 ? toolName.slice(0, at) : null;
}

/**
 * Wraps the tool registry so each call is an `execute_tool <name>` span: the tool's name and call id, the MCP
 * server for a server's tool, and `error.type` when it failed (`tool_error`: the tool answered `ok: false`).
 * Arguments and results go on the span only with content capture on. With tracing off, the registry as is.
 */
export function traceTools(
  registry: ToolRegistry,
  tracing: Tracing,
  ownTools: ReadonlySet<string>,
  parentOf?: (runId: string) => string | null,
): ToolRegistry {
  if (!tracing.enabled) return registry;
  return {
    specsFor: (context) => registry.specsFor(context),
    approvalNeeded: (call, context) => registry.approvalNeeded(call, context),
    privateSource: (call, context) => registry.privateSource(call, context),
    execute(call, context) {
      const server = ownTools.has(call.name) ? null : mcpServerOf(call.name);
      const attributes = {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': call.name,
        'gen_ai.tool.call.id': call.id,
        'gen_ai.tool.type': server ? 'extension' : 'function',
        'errand.mcp.server': server ?? undefined,
        'mcp.method.name': server ? 'tools/call' : undefined,
        ...(tracing.captureContent ? { 'gen_ai.tool.call.arguments': call.arguments } : {}),
      };
      // Under its run's span, found by the run; the active span inside, for the MCP call's `traceparent`.
      const parent = parentOf?.(context.runId) ?? undefined;
      return tracing.span(`execute_tool ${call.name}`, { attributes, ...(parent ? { parent } : {}) }, async (span) => {
        const outcome = await registry.execute(call, context);
        if (!outcome.result.ok) span.fail('tool_error');
        if (tracing.captureContent) span.set({ 'gen_ai.tool.call.result': JSON.stringify(outcome.result) });
        return outcome;
      });
    },
  };
}
