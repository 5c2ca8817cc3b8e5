import { bigint, index, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { bytea, epochMs } from './pg-columns.js';

/** A conversation's sandbox workspace and when it was last used (retention reads it). */
export const workspaces = pgTable(
  'workspaces',
  {
    conversationId: text('conversation_id').primaryKey(),
    lastUsedAt: epochMs('last_used_at').notNull(),
  },
  (t) => [index('workspaces_last_used_idx').on(t.lastUsedAt)],
);

/** One file of a workspace, bytes and all: every process on the database reaches it. */
export const workspaceFiles = pgTable(
  'workspace_files',
  {
    conversationId: text('conversation_id').notNull(),
    path: text('path').notNull(),
    bytes: bytea('bytes').notNull(),
    size: bigint('size', { mode: 'number' }).notNull(),
    mtime: epochMs('mtime').notNull(),
  },
  (t) => [primaryKey({ columns: [t.conversationId, t.path] })],
);
