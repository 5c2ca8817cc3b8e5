import { auditedArguments, type AuditLog } from '../../audit/audit-log.js';
import type { ToolRegistry } from './tool-registry.js';

/**
 * Wraps the tool registry so every call a run makes is an audit entry once it returns: the tool, its arguments,
 * whom the run acts for, and whether it succeeded (the result itself is not kept: it may hold what a person's
 * own connection returned). The entry is written after the call, so it never delays the call itself.
 */
export function auditTools(registry: ToolRegistry, log: AuditLog | null): ToolRegistry {
  if (!log) return registry;
  return {
    specsFor: (context) => registry.specsFor(context),
    approvalNeeded: (call, context) => registry.approvalNeeded(call, context),
    privateSource: (call, context) => registry.privateSource(call, context),
    async execute(call, context) {
      const outcome = await registry.execute(call, context);
      const principal = context.principal ? `${context.principal.platform}:${context.principal.userId}` : null;
      const result = outcome.result.ok ? { ok: true } : { ok: false, error: outcome.result.error };
      await log.record('tool_call', null, context.runId, {
        conversationId: context.conversationId,
        principal,
        tool: call.name,
        callId: call.id,
        arguments: auditedArguments(call.arguments),
        ...result,
        ...(outcome.effect ? { effect: outcome.effect.kind } : {}),
      });
      return outcome;
    },
  };
}
