import { z } from 'zod';

/**
 * What the audit log records: a tool call a run made, a person's decision on an approval, a change made through
 * the web console (or a sign-in to it), and a change of the configuration Errand started with.
 */
export const AUDIT_KINDS = ['tool_call', 'approval', 'change', 'sign_in', 'config'] as const;
export type AuditKind = (typeof AUDIT_KINDS)[number];

/** One entry before it is chained: what the hash covers (with the previous entry's hash). */
export interface AuditEntry {
  /** Epoch milliseconds. */
  readonly at: number;
  readonly kind: AuditKind;
  /** `platform:user` of who did it; null where nobody but the model did (a tool call). */
  readonly actor: string | null;
  readonly runId: string | null;
  /** What happened, in fields of the kind's own (tool and arguments, decision, what changed). */
  readonly detail: Readonly<Record<string, unknown>>;
}

/** An entry as stored: its place in the chain and the hashes that hold it there. */
export interface ChainedAuditEntry extends AuditEntry {
  readonly id: number;
  readonly prevHash: string;
  readonly hash: string;
}

/** The entry's JSON as read back from the database (the check parses it; a row that does not parse is a broken link). */
export const auditEntrySchema = z.object({
  at: z.number(),
  kind: z.enum(AUDIT_KINDS),
  actor: z.string().nullable(),
  runId: z.string().nullable(),
  detail: z.record(z.string(), z.unknown()),
});
