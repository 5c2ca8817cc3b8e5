import type { StoredToolCall } from '../records/stored-values.js';
import { auditedArguments, type AuditLog } from './audit-log.js';

/** A person's decision on a tool call that waited for approval, as the run that asked takes it back. */
export interface ApprovalDecided {
  readonly conversationId: string;
  readonly runId: string;
  /** The model-facing tool name (`<server>__<tool>`). */
  readonly tool: string;
  readonly call: StoredToolCall;
  /** `timeout`: nobody decided in time. */
  readonly decision: 'once' | 'always' | 'deny' | 'timeout';
  /** The platform user id of whoever decided; null for a timeout. */
  readonly decidedBy: string | null;
}

/** Where approvals are recorded (the audit log); the run's resume calls it once per decision it takes. */
export interface ApprovalAudit {
  decided(decision: ApprovalDecided): Promise<void>;
}

/** Approvals into the audit log: who decided (`platform:user`, the platform from the conversation's key), what and on which call. */
export function approvalAudit(log: AuditLog): ApprovalAudit {
  return {
    decided: (d) => {
      const platform = d.conversationId.split(':')[0] ?? '';
      const actor = d.decidedBy ? `${platform}:${d.decidedBy}` : null;
      return log.record('approval', actor, d.runId, {
        conversationId: d.conversationId,
        tool: d.tool,
        callId: d.call.id,
        arguments: auditedArguments(d.call.arguments),
        decision: d.decision,
      });
    },
  };
}
