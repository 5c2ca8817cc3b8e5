import { z } from 'zod';
import type { TranscriptRow } from './agent-types.js';
import type { ImagePart, StoredToolCall } from '../records/stored-values.js';
import type { LlmMessage } from './llm-client.js';

/**
 * A piece of the transcript that goes into the context whole or not at all: a user message, or
 * an assistant message followed by exactly one result for each of its tool calls. Keeping units
 * whole is what keeps a request valid: no tool message without its call, no call without its result.
 */
export type ContextUnit = readonly LlmMessage[];

export interface TranscriptUnits {
  units: ContextUnit[];
  /** Index in `units` of the run's goal (the newest user row equal to the goal text), or -1. */
  goalIndex: number;
  /** Per unit, the transcript row ids it was built from: its first (the head) and its newest. */
  spans: UnitSpan[];
}

/** The transcript rows behind one unit: what a summary of it covers. */
export interface UnitSpan {
  readonly first: number;
  readonly last: number;
}

/** The result a tool call gets when the transcript has none (the process died mid-step, or the run was stopped). */
export const INTERRUPTED_RESULT = JSON.stringify({ ok: false, error: 'This tool call was interrupted before it finished (restart or stop).' });

const storedToolCallsSchema = z.array(z.object({ id: z.string().min(1), name: z.string(), arguments: z.string() }));
const storedImagesSchema = z.array(z.object({ name: z.string(), url: z.string().startsWith('data:image/') }));

/** A user row's stored images; anything unreadable counts as none rather than breaking every request. */
function parseImages(raw: unknown): ImagePart[] {
  if (raw === null || raw === undefined) return [];
  const parsed = storedImagesSchema.safeParse(raw);
  return parsed.success ? parsed.data : [];
}

interface Draft {
  head: LlmMessage;
  first: number;
  last: number;
  calls: StoredToolCall[];
  results: Map<string, string>;
}

function parseToolCalls(raw: unknown, pendingToolCallId: string | undefined): StoredToolCall[] {
  if (raw === null || raw === undefined) return [];
  const parsed = storedToolCallsSchema.safeParse(raw);
  if (!parsed.success) return [];
  const seen = new Set<string>();
  const calls: StoredToolCall[] = [];
  for (const c of parsed.data) {
    if (c.id === pendingToolCallId || seen.has(c.id)) continue;
    seen.add(c.id);
    calls.push(c);
  }
  return calls;
}

/**
 * Groups stored rows (oldest first) into units. A tool row joins the assistant message that made
 * its call wherever it was stored (an answer to a question arrives later than the step's other
 * results); a second result for one call, or a result whose call is not in `rows`, is left out; a
 * call without a result gets an "interrupted" one. The call a waiting run is parked on
 * (`pendingToolCallId`) is left out with its result. Stored `system` rows become user messages.
 * Assistant rows with neither text nor tool calls are skipped: the API refuses them. A user row's
 * images stay with it.
 * With `goal` null, the newest user row is taken as the goal.
 */
export function transcriptUnits(rows: readonly TranscriptRow[], goal: string | null, pendingToolCallId?: string): TranscriptUnits {
  const drafts: Draft[] = [];
  const owner = new Map<string, number>();
  let goalIndex = -1;
  let lastUser = -1;
  for (const row of rows) {
    switch (row.role) {
      case 'tool': {
        const id = row.toolCallId;
        if (!id || id === pendingToolCallId) break;
        const draft = drafts[owner.get(id) ?? -1];
        if (draft && !draft.results.has(id)) {
          draft.results.set(id, row.content ?? '');
          draft.last = Math.max(draft.last, row.id);
        }
        break;
      }
      case 'assistant': {
        const calls = parseToolCalls(row.toolCalls, pendingToolCallId);
        if (calls.length === 0 && !row.content) break;
        const index = drafts.push({ head: { role: 'assistant', content: row.content }, first: row.id, last: row.id, calls, results: new Map() }) - 1;
        for (const c of calls) owner.set(c.id, index);
        break;
      }
      case 'user':
      case 'system': {
        const content = row.content ?? '';
        const images = row.role === 'user' ? parseImages(row.images) : [];
        const head: LlmMessage = images.length > 0 ? { role: 'user', content, images } : { role: 'user', content };
        const index = drafts.push({ head, first: row.id, last: row.id, calls: [], results: new Map() }) - 1;
        if (row.role === 'user') {
          lastUser = index;
          if (goal !== null && content === goal) goalIndex = index;
        }
        break;
      }
    }
  }
  const units = drafts.map((d): ContextUnit => {
    if (d.calls.length === 0) return [d.head];
    const head: LlmMessage = { role: 'assistant', content: d.head.content, toolCalls: d.calls };
    return [head, ...d.calls.map((c): LlmMessage => ({ role: 'tool', toolCallId: c.id, content: d.results.get(c.id) ?? INTERRUPTED_RESULT }))];
  });
  return { units, goalIndex: goal === null ? lastUser : goalIndex, spans: drafts.map((d) => ({ first: d.first, last: d.last })) };
}
