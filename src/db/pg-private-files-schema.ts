import { bigint, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { bytea } from './pg-columns.js';

/** The files of a held post of purpose `files`, waiting for their owner's choice (see private-files-schema.ts). */
export const privateAnswerFiles = pgTable(
  'private_answer_files',
  {
    answerId: integer('answer_id').notNull(),
    position: integer('position').notNull(),
    post: integer('post').notNull(),
    name: text('name').notNull(),
    mimeType: text('mime_type').notNull(),
    bytes: bytea('bytes').notNull(),
  },
  (t) => [primaryKey({ columns: [t.answerId, t.position] })],
);

/** A workspace file private to one person (see private-files-schema.ts). */
export const privateWorkspaceFiles = pgTable(
  'private_workspace_files',
  {
    conversationId: text('conversation_id').notNull(),
    owner: text('owner').notNull(),
    path: text('path').notNull(),
    bytes: bytea('bytes').notNull(),
    size: bigint('size', { mode: 'number' }).notNull(),
    mtime: bigint('mtime', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.conversationId, t.owner, t.path] })],
);
