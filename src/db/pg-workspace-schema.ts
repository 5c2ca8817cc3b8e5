import { bigint, customType, index, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';

/** Milliseconds since the epoch, as pg-schema.ts stores every time. */
const epochMs = (name: string) => bigint(name, { mode: 'number' });

/** Raw bytes (`bytea`), read and written as a Buffer by node-postgres. */
const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => 'bytea' });

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
