import { bigint, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { bytea } from './pg-columns.js';

/** The files of an outbox row of purpose `files`, shared by every process (see outbox-files-schema.ts). */
export const outboxFiles = pgTable(
  'outbox_files',
  {
    outboxId: bigint('outbox_id', { mode: 'number' }).notNull(),
    position: integer('position').notNull(),
    name: text('name').notNull(),
    mimeType: text('mime_type').notNull(),
    bytes: bytea('bytes').notNull(),
    stagedId: text('staged_id'),
  },
  (t) => [primaryKey({ columns: [t.outboxId, t.position] })],
);
