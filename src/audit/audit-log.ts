import type { Logger } from '../logger.js';
import type { AuditEntry, AuditKind } from './audit-entry.js';
import type { AuditStore } from './audit-store.js';

/** Longest tool-call arguments kept whole in an entry; longer ones keep their head and say how much was cut. */
export const MAX_AUDITED_ARGUMENTS = 16_000;

/** Records entries; a failure is logged and never stops what is being recorded (the call, the decision, the change). */
export interface AuditLog {
  record(kind: AuditKind, actor: string | null, runId: string | null, detail: Record<string, unknown>): Promise<void>;
}

/** Arguments as stored: whole up to MAX_AUDITED_ARGUMENTS characters. */
export function auditedArguments(text: string): string {
  return text.length <= MAX_AUDITED_ARGUMENTS
    ? text
    : `${text.slice(0, MAX_AUDITED_ARGUMENTS)}… (${text.length - MAX_AUDITED_ARGUMENTS} more characters)`;
}

/** The audit log over its store, stamped with the clock. */
export function createAuditLog(store: AuditStore, now: () => number, logger: Logger): AuditLog {
  return {
    async record(kind, actor, runId, detail) {
      const entry: AuditEntry = { at: now(), kind, actor, runId, detail };
      try {
        await store.append(entry);
      } catch (err) {
        logger.error({ err, kind, runId }, 'writing an audit entry failed');
      }
    },
  };
}
