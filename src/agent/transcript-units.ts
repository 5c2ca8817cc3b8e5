import { z } from 'zod';
import type { TranscriptRow } from './agent-types.js';
import type { ImagePart, StoredToolCall } from '../records/stored-values.js';
import { privateAnswerPlaceholder, privateResultPlaceholder } from '../privacy/private-placeholders.js';
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
  /**
   * Set when the unit holds material private to the viewer: the unit as anyone else sees it (placeholders in place
   * of the viewer's private parts), what a summary shared with the others may take in. Absent: they see the same.
   */
  readonly shared?: ContextUnit;
}

/** The result a tool call gets when the transcript has none (the process died mid-step, or the run was stopped). */
export const INTERRUPTED_RESULT = JSON.stringify({
  ok: false,
  error: 'This tool call was interrupted before it finished (restart or stop).',
});

const storedToolCallsSchema = z.array(z.object({ id: z.string().min(1), name: z.string(), arguments: z.string() }));
const storedImagesSchema = z.array(z.object({ name: z.string(), url: z.string().startsWith('data:image/') }));

/** A user row's stored images; anything unreadable counts as none rather than breaking every request. */
function parseImages(raw: unknown): ImagePart[] {
  if (raw === null || raw === undefined) return [];
  const parsed = storedImagesSchema.safeParse(raw);
  return parsed.success ? parsed.data : [];
}

interface StoredResult {
  readonly content: string;
  readonly privateTo: string | null;
}

interface Draft {
  head: LlmMessage;
  first: number;
  last: number;
  calls: StoredToolCall[];
  results: Map<string, StoredResult>;
  /** The head is private to this person (null: public). */
  privateTo: string | null;
  /** Private to someone other than the viewer: the whole unit is one placeholder (`said`: it had text). */
  hidden: boolean;
  said: boolean;
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

/** A draft's unit as `viewer` sees it (null: anyone who is not one of the private rows' owners). */
function unitOf(d: Draft, viewer: string | null): ContextUnit {
  const hiddenFrom = (owner: string | null) => owner !== null && owner !== viewer;
  if (d.hidden || hiddenFrom(d.privateTo))
    return [{ role: 'assistant', content: privateAnswerPlaceholder(d.privateTo!, d.said) }];
  if (d.calls.length === 0) return [d.head];
  const head: LlmMessage = { role: 'assistant', content: d.head.content, toolCalls: d.calls };
  return [
    head,
    ...d.calls.map((c): LlmMessage => {
      const r = d.results.get(c.id);
      const content =
        r === undefined
          ? INTERRUPTED_RESULT
          : hiddenFrom(r.privateTo)
            ? privateResultPlaceholder(r.privateTo!)
            : r.content;
      return { role: 'tool', toolCallId: c.id, content };
    }),
  ];
}

/** Whether a (visible) draft holds material private to `viewer`. */
function holdsPrivateOf(d: Draft, viewer: string | null): boolean {
  if (viewer === null || d.hidden) return false;
  if (d.privateTo === viewer) return true;
  for (const r of d.results.values()) if (r.privateTo === viewer) return true;
  return false;
}

/**
 * Groups stored rows (oldest first) into units as `viewer` (the run's principal; null: nobody in particular) may see
 * them. A tool row joins the assistant message that made its call wherever it was stored (an answer to a question
 * arrives later than the step's other results); a second result for one call, or a result whose call is not in
 * `rows`, is left out; a call without a result gets an "interrupted" one. The call a waiting run is parked on
 * (`pendingToolCallId`) is left out with its result. Stored `system` rows become user messages. Assistant rows with
 * neither text nor tool calls are skipped: the API refuses them. A user row's images stay with it.
 * Private rows (DESIGN.md "Private stays private in a shared thread"): a result private to someone else becomes a
 * placeholder result (the call stays paired); an assistant row private to someone else becomes, with its results, one
 * assistant placeholder with no calls, and consecutive ones of the same person are one placeholder.
 * With `goal` null, the newest user row is taken as the goal.
 */
export function transcriptUnits(
  rows: readonly TranscriptRow[],
  goal: string | null,
  pendingToolCallId?: string,
  viewer: string | null = null,
): TranscriptUnits {
  const drafts: Draft[] = [];
  const owner = new Map<string, number>();
  let goalIndex = -1;
  let lastUser = -1;
  for (const row of rows) {
    const privateTo = row.privateTo ?? null;
    switch (row.role) {
      case 'tool': {
        const id = row.toolCallId;
        if (!id || id === pendingToolCallId) break;
        const draft = drafts[owner.get(id) ?? -1];
        if (!draft) break;
        if (draft.hidden) draft.last = Math.max(draft.last, row.id);
        else if (!draft.results.has(id)) {
          draft.results.set(id, { content: row.content ?? '', privateTo });
          draft.last = Math.max(draft.last, row.id);
        }
        break;
      }
      case 'assistant': {
        const calls = parseToolCalls(row.toolCalls, pendingToolCallId);
        if (calls.length === 0 && !row.content) break;
        const hidden = privateTo !== null && privateTo !== viewer;
        const previous = drafts.at(-1);
        if (hidden && previous?.hidden && previous.privateTo === privateTo) {
          // One placeholder for a run's consecutive private steps: nothing is gained by repeating it.
          previous.last = row.id;
          previous.said ||= Boolean(row.content);
          for (const c of calls) owner.set(c.id, drafts.length - 1);
          break;
        }
        const head: LlmMessage = { role: 'assistant', content: row.content };
        const index =
          drafts.push({
            head,
            first: row.id,
            last: row.id,
            calls: hidden ? [] : calls,
            results: new Map(),
            privateTo,
            hidden,
            said: Boolean(row.content),
          }) - 1;
        for (const c of calls) owner.set(c.id, index);
        break;
      }
      case 'user':
      case 'system': {
        const content = row.content ?? '';
        const images = row.role === 'user' ? parseImages(row.images) : [];
        const head: LlmMessage = images.length > 0 ? { role: 'user', content, images } : { role: 'user', content };
        const index =
          drafts.push({
            head,
            first: row.id,
            last: row.id,
            calls: [],
            results: new Map(),
            privateTo: null,
            hidden: false,
            said: true,
          }) - 1;
        if (row.role === 'user') {
          lastUser = index;
          if (goal !== null && content === goal) goalIndex = index;
        }
        break;
      }
    }
  }
  const units = drafts.map((d) => unitOf(d, viewer));
  const spans = drafts.map((d): UnitSpan =>
    holdsPrivateOf(d, viewer)
      ? { first: d.first, last: d.last, shared: unitOf(d, null) }
      : { first: d.first, last: d.last },
  );
  return { units, goalIndex: goal === null ? lastUser : goalIndex, spans };
}
