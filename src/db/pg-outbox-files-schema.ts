import { bigint, customType, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';

/** PostgreSQL's binary column: node-postgres reads it as a Buffer and writes a Buffer as it is. */
const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => 'bytea' });

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
