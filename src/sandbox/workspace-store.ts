/** A stored workspace file: its path under `/workspace`, bytes, size and modification time (epoch ms). */
export interface StoredWorkspaceFile {
  readonly path: string;
  readonly bytes: Buffer;
  readonly size: number;
  readonly mtime: number;
  /**
   * The person the file is private to (written by a run holding their private material, DESIGN.md "Private stays
   * private in a shared thread"); null or absent: public in the conversation. For its owner it stands in for a public
   * file of the same path.
   */
  readonly owner?: string | null;
}

/** A stored file without its bytes (sizes for the quota, names for a clash). */
export interface WorkspaceEntry {
  readonly path: string;
  readonly size: number;
  /** As in StoredWorkspaceFile: the person it is private to; null or absent: public. */
  readonly owner?: string | null;
}

/** Which stored file: its path, and whose it is (null: the public one). */
export interface WorkspaceFileKey {
  readonly path: string;
  readonly owner: string | null;
}

/** What one call changed: files written (new or different) and files removed. */
export interface WorkspaceChanges {
  readonly upserts: readonly StoredWorkspaceFile[];
  readonly deletes: readonly string[];
  /** Files private to one person removed (`deletes` names public ones). */
  readonly privateDeletes?: readonly WorkspaceFileKey[];
}

/**
 * Conversations' workspaces in the database (SQLite or PostgreSQL), so every process reaches the same files and
 * they outlive a restart. A workspace is its files plus the time it was last used, which retention reads.
 */
export interface WorkspaceStore {
  /** Every file of the conversation's workspace, with its bytes. */
  files(conversationId: string): Promise<StoredWorkspaceFile[]>;
  /** The conversation's public files and `viewer`'s private ones (with `owner`): what a call of theirs sees, by layer. */
  filesFor(conversationId: string, viewer: string): Promise<StoredWorkspaceFile[]>;
  /** Paths and sizes of the conversation's files. */
  entries(conversationId: string): Promise<WorkspaceEntry[]>;
  /** Paths, sizes and owners of the files private to anyone in the conversation (never their bytes). */
  privateEntries(conversationId: string): Promise<WorkspaceEntry[]>;
  /** Applies a call's changes in one transaction and marks the workspace used at `now`. */
  apply(conversationId: string, changes: WorkspaceChanges, now: number): Promise<void>;
  /** Stores a file unless its path is taken (false then); marks the workspace used at `now`. */
  addIfAbsent(conversationId: string, file: StoredWorkspaceFile, now: number): Promise<boolean>;
  /** Deletes, files and all, up to `limit` workspaces last used before `before`; returns their conversations. */
  deleteIdleBefore(before: number, limit: number): Promise<string[]>;
  /**
   * Makes files private to `owner` public, each only while it still holds the bytes given (what its owner shared in
   * the thread), replacing a public file of the same path. Returns how many were made public.
   */
  publish(
    conversationId: string,
    owner: string,
    files: readonly { readonly path: string; readonly bytes: Uint8Array }[],
  ): Promise<number>;
}
