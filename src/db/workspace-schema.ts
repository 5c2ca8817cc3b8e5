import { blob, index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * A conversation's sandbox workspace (DESIGN.md "Running code in a sandbox"): when it was last used, which is
 * what retention (`sandbox.retentionDays`) reads. Its files are in `workspace_files`.
 */
export const workspaces = sqliteTable(
  'workspaces',
  {
    conversationId: text('conversation_id').primaryKey(),
    lastUsedAt: integer('last_used_at').notNull(),
  },
  (t) => [index('workspaces_last_used_idx').on(t.lastUsedAt)],
);

/** One file of a workspace, by its path under `/workspace` (`in/data.csv`, `posted/chart.png`), bytes and all. */
export const workspaceFiles = sqliteTable(
  'workspace_files',
  {
    conversationId: text('conversation_id').notNull(),
    path: text('path').notNull(),
    bytes: blob('bytes', { mode: 'buffer' }).notNull(),
    size: integer('size').notNull(),
    mtime: integer('mtime').notNull(),
  },
  (t) => [primaryKey({ columns: [t.conversationId, t.path] })],
);

export type WorkspaceFileRow = typeof workspaceFiles.$inferSelect;
