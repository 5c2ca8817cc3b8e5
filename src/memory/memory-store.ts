import type { ConversationSummaryRow, MemoryRow, MemoryScope, PrivateSummaryRow } from '../db/schema.js';
import type { ConversationRow, MessageRow, SkillPinRow } from '../db/schema.js';

export type { ConversationSummaryRow, MemoryRow, MemoryScope, PrivateSummaryRow };

/**
 * Which memories a run (or a person using `/memory`) may see, worked out from its principal and its
 * conversation (src/memory/memory-visibility.ts), never from what the model asks for. Each key is the
 * `subject` of one scope; a null `person` (a run with no principal) sees no `me` memories.
 */
export interface MemoryVisibility {
  /** `platform:user` of the principal. */
  readonly person: string | null;
  /** `platform:workspace:channel`: a thread follows its channel, a DM is its own channel. */
  readonly channel: string;
  /** `platform:workspace`; null where the place belongs to no workspace (a Discord DM): no workspace memories then. */
  readonly workspace: string | null;
}

/**
 * The largest memory id there can be (a 32-bit integer column on PostgreSQL). A larger id, typed in `/memory forget`
 * or sent by the model, names no memory: the stores answer "none" instead of asking the database, which would
 * fail with an integer overflow.
 */
export const MAX_MEMORY_ID = 2_147_483_647;

/** Whether `id` can be a memory's id at all. */
export const isMemoryId = (id: number): boolean => Number.isSafeInteger(id) && id >= 1 && id <= MAX_MEMORY_ID;

/** A memory about to be stored: its subject is already the run's, not the model's. */
export interface NewMemory {
  readonly scope: MemoryScope;
  readonly subject: string;
  readonly text: string;
  /** `platform:user` of the principal who asked for it. */
  readonly createdBy: string;
}

/**
 * What Errand remembers (DESIGN.md "Memory"): each conversation's summary of what fell out of its context,
 * and long-term memories searched by full text (SQLite FTS5, PostgreSQL tsvector). No cache above it: a
 * forgotten memory is gone from the next read on every process.
 */
export interface MemoryStore {
  /** The conversation's summary, or null when nothing was summarised yet. */
  summary(conversationId: string): Promise<ConversationSummaryRow | null>;
  /**
   * Writes the summary when its stored version is still `expectedVersion` (0: there is none yet), moving the
   * version on: a compare-and-swap, so of two processes summarising at once only one writes. True when written.
   */
  saveSummary(
    conversationId: string,
    expectedVersion: number,
    summary: string,
    throughMessageId: number,
  ): Promise<boolean>;
  /** The summarised conversations of one channel (`platform:workspace:channel`), newest summary first, at most `limit`. */
  summariesIn(channel: string, limit: number): Promise<ConversationSummaryRow[]>;
  /** Stores a memory and returns it with its id. */
  remember(memory: NewMemory): Promise<MemoryRow>;
  /** How many memories a person has stored (every scope): the per-person limit counts these. */
  countBy(createdBy: string): Promise<number>;
  /**
   * Memories `visibility` allows (only `scope`'s, when given) that match any word of `query`, best match
   * first, at most `limit`. A query without a word matches nothing.
   */
  search(visibility: MemoryVisibility, query: string, limit: number, scope?: MemoryScope): Promise<MemoryRow[]>;
  /** Memories `visibility` allows (only `scope`'s, when given), newest first, at most `limit`. */
  newest(visibility: MemoryVisibility, limit: number, scope?: MemoryScope): Promise<MemoryRow[]>;
  /** One memory by id, whoever may see it (callers check), or null. */
  memory(id: number): Promise<MemoryRow | null>;
  /**
   * Deletes a memory; false when there was none with that id. Its text also leaves every transcript row that showed it
   * (`recall` results: see recall-redaction.ts), and the private summaries that may have taken it in from such a row
   * are dropped, so it reaches no later request.
   */
  forget(id: number): Promise<boolean>;
  /** `owner`'s own summary of their private material that fell out of the conversation's context, or null. */
  privateSummary(conversationId: string, owner: string): Promise<PrivateSummaryRow | null>;
  /** Writes `owner`'s private summary when its stored version is still `expectedVersion` (0: none yet), like `saveSummary`. */
  savePrivateSummary(
    conversationId: string,
    owner: string,
    expectedVersion: number,
    summary: string,
    throughMessageId: number,
  ): Promise<boolean>;
  /**
   * A request's summaries, transcript window and memories (and at a run's start its conversation row and the skill
   * pins) in one read, each part exactly as its own read gives it. PostgreSQL only (one statement for five to seven
   * round trips); absent: the parts are read one by one.
   */
  readContext?(read: StoredContextRead): Promise<StoredContext>;
}

/**
 * What a run's request reads from the store in one go (`MemoryStore.readContext`): the parts `summary`,
 * `privateSummary`, `TranscriptStore.recent`, `search` and `newest` read one by one, and at a run's start the
 * conversation's row and the skill pins.
 */
export interface StoredContextRead {
  readonly conversationId: string;
  /** Whose private summary; null: none is read. */
  readonly owner: string | null;
  /** The newest transcript rows to read. */
  readonly historyRows: number;
  /** The memories to read, as `search(visibility, query, matched)` and `newest(visibility, newest)`; null: none. */
  readonly memories: {
    readonly visibility: MemoryVisibility;
    readonly query: string;
    readonly matched: number;
    readonly newest: number;
  } | null;
  readonly conversation: boolean;
  readonly pins: boolean;
}

/** What a `StoredContextRead` found: each part exactly as its own read returns it. */
export interface StoredContext {
  readonly summary: ConversationSummaryRow | null;
  readonly privateSummary: PrivateSummaryRow | null;
  /** Oldest first, as `TranscriptStore.recent`. */
  readonly window: MessageRow[];
  /** As `search`: best match first (empty without memories, or when the query has no word). */
  readonly matched: MemoryRow[];
  /** As `newest`: newest first. */
  readonly newest: MemoryRow[];
  /** Asked with `conversation`, else undefined. */
  readonly conversation?: ConversationRow | null;
  /** Asked with `pins`, else undefined. */
  readonly pins?: SkillPinRow[];
}
