import { blob, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * The files of an outbox row of purpose `files` (a run's output posted to its thread), one row per file in the
 * order posted: the bytes wait here, beside the row, until the post is settled (posted or failed), then they
 * are deleted and the outbox row alone keeps the record. `staged_id` is the platform's id of a file already
 * uploaded but maybe not yet shared (Slack), written before it is shared, so a try after a crash finds it
 * instead of posting the file twice. No foreign key to `outbox` (it lives in schema.ts, which re-exports this
 * file): the outbox store's settling deletes the files, and a start-up sweep removes any a crash left behind.
 */
export const outboxFiles = sqliteTable(
  'outbox_files',
  {
    outboxId: integer('outbox_id').notNull(),
    position: integer('position').notNull(),
    name: text('name').notNull(),
    mimeType: text('mime_type').notNull(),
    bytes: blob('bytes', { mode: 'buffer' }).$type<Buffer>().notNull(),
    stagedId: text('staged_id'),
  },
  (t) => [primaryKey({ columns: [t.outboxId, t.position] })],
);
