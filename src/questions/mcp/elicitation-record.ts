import { ElicitResultSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { ElicitationRow } from '../../db/schema.js';
import { readRequestedElicitation, type RequestedElicitation } from './requested-form.js';

/** A question Errand shows: a form or a link (an unsupported one is declined before anything is stored). */
export type ShownElicitation = Extract<RequestedElicitation, { mode: 'form' | 'url' }>;

/** The part of a server's request that is the question itself, as stored: read back with readRequestedElicitation. */
export function storedRequest(params: unknown): unknown {
  const p = (typeof params === 'object' && params !== null ? params : {}) as Record<string, unknown>;
  return p.mode === 'url'
    ? { mode: 'url', message: p.message, url: p.url, elicitationId: p.elicitationId }
    : { mode: 'form', message: p.message, requestedSchema: p.requestedSchema };
}

/** JSON with object keys sorted, so one question asked twice reads the same however its server ordered it. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * What makes two questions the same question: the server, the message and the schema (or link). A call made again
 * after a restart is answered from the stored answer only when its server asks exactly this again.
 */
export function fingerprintOf(server: string, params: unknown): string {
  return canonical({ server, ...(storedRequest(params) as Record<string, unknown>) });
}

/** A stored question read back (through the same zod reading as a fresh request); null when it no longer reads as one. */
export function requestOf(row: Pick<ElicitationRow, 'request'>): ShownElicitation | null {
  try {
    const request = readRequestedElicitation(row.request);
    return request.mode === 'unsupported' ? null : request;
  } catch {
    return null;
  }
}

/** The MCP result a settled question sent back; cancel when it is not settled or its answer does not read as one. */
export function resultOf(row: Pick<ElicitationRow, 'answer' | 'state'>): ElicitResult {
  if (row.state === 'waiting') return { action: 'cancel' };
  const parsed = ElicitResultSchema.safeParse(row.answer);
  return parsed.success ? parsed.data : { action: 'cancel' };
}
