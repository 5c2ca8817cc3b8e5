import type { ElicitationRow, ElicitationState } from '../db/schema.js';

/** A question about to be asked: everything any process needs to show it, check an answer and settle it. */
export type NewElicitation = Omit<
  ElicitationRow,
  'messageId' | 'state' | 'answer' | 'answeredBy' | 'outcome' | 'carriedOver' | 'replayedAt' | 'settledAt'
>;

/** How a question ended: its state, the MCP result sent back, who answered (null for a timeout or stop) and what the post says. */
export interface ElicitationEnd {
  readonly state: Exclude<ElicitationState, 'waiting'>;
  readonly answer: unknown;
  readonly answeredBy: string | null;
  readonly outcome: string;
}

/**
 * The questions MCP servers ask runs' principals (elicitations), shared by every process on the database. A question
 * is settled once: `settle` is a compare-and-swap from `waiting`, so of two answers arriving on two processes only the
 * first counts, and the process holding the call reads the winner back (`settledAmong`).
 */
export interface ElicitationStore {
  add(question: NewElicitation): Promise<void>;
  get(id: string): Promise<ElicitationRow | null>;
  /** The platform id of the question's post, once delivered. */
  setMessage(id: string, messageId: string): Promise<void>;
  /** Settles a waiting question; false when it was settled already (or is unknown). */
  settle(id: string, end: ElicitationEnd, now: number): Promise<boolean>;
  /** Of `ids`, the questions no longer waiting (the process holding their calls looks, to learn of answers given elsewhere). */
  settledAmong(ids: readonly string[]): Promise<ElicitationRow[]>;
  /** The run's newest question, if any (recovery: was the interrupted call waiting on one?). */
  newestOf(runId: string): Promise<ElicitationRow | null>;
  /**
   * The questions still waiting that were carried over a restart, asked of `principal` on `platform`, oldest first:
   * where a surface keeps no post between processes (the console), it puts them to the person again when it starts.
   */
  carriedOverTo(platform: string, principal: string): Promise<ElicitationRow[]>;
  /** Marks a question as the one its run waits on after its call died: its answer is given to the re-issued call. */
  carryOver(id: string): Promise<void>;
  /**
   * Takes the answer of a carried-over question of `runId` with this `fingerprint` for the re-issued call, once:
   * null when there is none (or it was taken already).
   */
  takeReplay(runId: string, fingerprint: string, now: number): Promise<ElicitationRow | null>;
}
