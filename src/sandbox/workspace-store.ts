/** A stored workspace file: its path under `/workspace`, bytes, size and modification time (epoch ms). */
export interface StoredWorkspaceFile {
  readonly path: string;
  readonly bytes: Buffer;
  readonly size: number;
  readonly mtime: number;
}

/** A stored file without its bytes (sizes for the quota, names for a clash). */
export interface WorkspaceEntry {
  readonly path: string;
  readonly size: number;
}

/** What one call changed: files written (new or different) and files removed. */
export interface WorkspaceChanges {
  readonly upserts: readonly StoredWorkspaceFile[];
  readonly deletes: readonly string[];
}

/**
 * Conversations' workspaces in the database (SQLite or PostgreSQL), so every process reaches the same files and
 * they outlive a restart. A workspace is its files plus the time it was last used, which retention reads.
 */
export interface WorkspaceStore {
  /** Every file of the conversation's workspace, with its bytes. */
  files(conversationId: string): Promise<StoredWorkspaceFile[]>;
  /** Paths and sizes of the conversation's files. */
  entries(conversationId: string): Promise<WorkspaceEntry[]>;
  /** Applies a call's changes in one transaction and marks the workspace used at `now`. */
  apply(conversationId: string, changes: WorkspaceChanges, now: number): Promise<void>;
  /** Stores a file unless its path is taken (false then); marks the workspace used at `now`. */
  addIfAbsent(conversationId: string, file: StoredWorkspaceFile, now: number): Promise<boolean>;
  /** Deletes, files and all, up to `limit` workspaces last used before `before`; returns their conversations. */
  deleteIdleBefore(before: number, limit: number): Promise<string[]>;
}
