import type { OutboundFile } from '../chat/file-posts.js';

/** A file of a `files` outbox row, as stored. */
export interface StoredOutboxFile extends OutboundFile {
  /** The platform's id of this file from an earlier try that uploaded it (Slack), null when none did. */
  readonly stagedId: string | null;
}

/**
 * The bytes of the outbox's file posts (table `outbox_files`), kept beside their row until it is settled.
 * Callers put `add` in the transaction that adds the row, so the row never exists without its files.
 */
export interface OutboxFileStore {
  /** Stores the files of outbox row `outboxId`, in order. */
  add(outboxId: number, files: readonly OutboundFile[]): Promise<void>;
  /** The row's files in order; empty when none are kept (the post is settled, or the row has none). */
  filesOf(outboxId: number): Promise<StoredOutboxFile[]>;
  /** Records the platform's ids of the row's files once uploaded, one per file in order, before they are shared. */
  setStaged(outboxId: number, ids: readonly string[]): Promise<void>;
  /** Deletes the row's files: its post is settled (posted or failed for good). */
  release(outboxId: number): Promise<void>;
  /** Deletes the files of every row no longer pending (settled by a path that did not release them); returns how many files. */
  releaseSettled(): Promise<number>;
}
