import type { Person } from '../access/access-policy.js';
import type { ConversationRef } from '../chat/conversation-ref.js';
import type { ConversationStore } from '../conversations/conversation-store.js';
import type { TranscriptStore } from '../conversations/transcript-store.js';
import type { SkillPinRow } from '../skills/skill-pin-store.js';
import type { memoriesSection } from './system-prompt.js';

/** A long-term memory as one request carries it (listed under the system prompt). */
type Memory = Parameters<typeof memoriesSection>[0][number];

/** A summary as the context reads it: its text, the newest message it took in, its version (the compare-and-swap). */
export interface StoredSummary {
  readonly summary: string;
  readonly throughMessageId: number;
  readonly version: number;
}

/**
 * What one build of a run's request reads (context-assembly.ts): the conversation's summary, the viewer's own
 * summary, the transcript's newest rows and, with `memoryOf`, the long-term memories the principal may see there.
 * A run's start (run-launch.ts) asks for the conversation's row and the skill pins with its first build.
 */
export interface ContextRead {
  readonly conversationId: string;
  /** Whose private summary is read (the run's principal); null: none is. */
  readonly viewer: string | null;
  /** How many of the newest transcript rows. */
  readonly historyRows: number;
  /** Whose memories, where, matched against which goal; null: no memory is read. */
  readonly memoryOf: {
    readonly principal: Person | null;
    readonly place: ConversationRef;
    readonly goal: string;
  } | null;
  /** Also the conversation's row (its stored timezone). */
  readonly conversation?: boolean;
  /** Also every skill pin (`/skills enable`). */
  readonly pins?: boolean;
}

/** What a `ContextRead` found, each part as its own store reads it today. */
export interface ContextReadResult {
  readonly summary: StoredSummary | null;
  readonly mine: StoredSummary | null;
  /** The newest `historyRows` rows, oldest first (as `TranscriptStore.recent`). */
  readonly window: Awaited<ReturnType<TranscriptStore['recent']>>;
  /** The memories the request carries (within MEMORY_TOKEN_BUDGET); empty without `memoryOf`. */
  readonly memories: readonly Memory[];
  /** Asked with `conversation`: the conversation's row, or null when there is none. */
  readonly conversation?: Awaited<ReturnType<ConversationStore['get']>>;
  /** Asked with `pins`: every skill pin, by name. */
  readonly pins?: SkillPinRow[];
}

/** Reads a request's context in one go (the PostgreSQL store: one statement). */
export type ReadContext = (read: ContextRead) => Promise<ContextReadResult>;

/**
 * `readContext` that answers its first call with `first` (read at the run's start, with the conversation and the
 * skill pins) when that call asks for the same context, and reads every later call (and a different first one):
 * the first request of a run is then built from the run start's one statement. Nothing of the run is written
 * between the two (a resumed run, which writes before its first request, is not started this way).
 */
export function withFirstRead(readContext: ReadContext, asked: ContextRead, first: ContextReadResult): ReadContext {
  let used = false;
  return (read) => {
    const serve = !used && sameContext(read, asked);
    used = true;
    return serve ? Promise.resolve(first) : readContext(read);
  };
}

/** Whether two reads ask for the same context (the run start's extra parts aside). */
function sameContext(a: ContextRead, b: ContextRead): boolean {
  if (a.conversationId !== b.conversationId || a.viewer !== b.viewer || a.historyRows !== b.historyRows) return false;
  if (a.memoryOf === null || b.memoryOf === null) return a.memoryOf === b.memoryOf;
  return (
    a.memoryOf.goal === b.memoryOf.goal &&
    a.memoryOf.place === b.memoryOf.place &&
    a.memoryOf.principal === b.memoryOf.principal
  );
}
