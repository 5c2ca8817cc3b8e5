import type { OutboundFile } from '../chat/file-posts.js';
import type { PrivateAnswerRow, PrivateAnswerState } from '../db/schema.js';

export type { PrivateAnswerRow, PrivateAnswerState };

/** An answer (or update) of a private run, about to be held back for its owner's choice. */
export interface HeldAnswer {
  readonly conversationId: string;
  readonly runId: string | null;
  /** The transcript row of the answer (made public when shared); null for an update. */
  readonly messageId: number | null;
  /** The run's principal (platform user id). */
  readonly owner: string;
  readonly purpose: 'answer' | 'update' | 'files';
  readonly text: string;
}

/** A file of a held post of files (`purpose: 'files'`), kept until its owner's choice. */
export interface HeldFile extends OutboundFile {
  /** Which message of the thread's post it goes in when shared (the platform's limits cut them so when held). */
  readonly post: number;
}

/**
 * Answers held back for their owner's **Share in thread** / **Keep private** choice (DESIGN.md "Private stays private
 * in a shared thread"). Durable, so a click after a restart, or on another process, still finds its answer.
 */
export interface PrivateAnswerStore {
  /** Records an answer held back (state `held`); returns its id (what its buttons carry). */
  hold(answer: HeldAnswer): Promise<number>;
  /** One held answer by id, or null. */
  get(id: number): Promise<PrivateAnswerRow | null>;
  /**
   * Records the owner's choice while the answer is still `held` (the first choice wins): `shared` also makes its
   * transcript row public, so later runs of anyone in the conversation see the answer that is now in the thread.
   * False when it was no longer held.
   */
  decide(id: number, choice: Exclude<PrivateAnswerState, 'held'>, at: number): Promise<boolean>;
  /** Keeps the files of held post `id` (of purpose `files`), in order. */
  holdFiles(id: number, files: readonly HeldFile[]): Promise<void>;
  /** The files of held post `id` in order; empty once decided (or for an answer). */
  filesOf(id: number): Promise<HeldFile[]>;
  /** Deletes the files of held post `id` (its owner chose). */
  dropFiles(id: number): Promise<void>;
}
