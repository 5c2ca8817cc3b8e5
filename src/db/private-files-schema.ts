import { blob, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * The files of a held post of purpose `files` (`private_answers`): what `run_code` wrote to `/workspace/out/` in a run
 * holding its principal's private material, in a conversation others read (DESIGN.md "Private stays private in a
 * shared thread"). The bytes wait here for their owner's choice: **Share in thread** posts them (`post` says which
 * message of the thread's post each goes in, as the platform's limits cut them when they were held), **Keep private**
 * drops them; either way they are deleted once decided.
 */
export const privateAnswerFiles = sqliteTable(
  'private_answer_files',
  {
    answerId: integer('answer_id').notNull(),
    position: integer('position').notNull(),
    post: integer('post').notNull(),
    name: text('name').notNull(),
    mimeType: text('mime_type').notNull(),
    bytes: blob('bytes', { mode: 'buffer' }).$type<Buffer>().notNull(),
  },
  (t) => [primaryKey({ columns: [t.answerId, t.position] })],
);

/**
 * A workspace file private to one person (`owner`, their platform user id): written by a `run_code` call of a run
 * holding their private material. Only that person's calls see it (beside the conversation's public files in
 * `workspace_files`, standing in for a public file of the same path); it counts towards the workspace's quota and
 * goes with the workspace. A file their Share in thread posted becomes public (moved to `workspace_files`).
 */
export const privateWorkspaceFiles = sqliteTable(
  'private_workspace_files',
  {
    conversationId: text('conversation_id').notNull(),
    owner: text('owner').notNull(),
    path: text('path').notNull(),
    bytes: blob('bytes', { mode: 'buffer' }).notNull(),
    size: integer('size').notNull(),
    mtime: integer('mtime').notNull(),
  },
  (t) => [primaryKey({ columns: [t.conversationId, t.owner, t.path] })],
);
