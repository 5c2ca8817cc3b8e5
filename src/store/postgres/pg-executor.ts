import type { ExtractTablesWithRelations } from 'drizzle-orm';
import type { NodePgQueryResultHKT } from 'drizzle-orm/node-postgres';
import type { PgDatabase } from 'drizzle-orm/pg-core';
import type * as pgSchema from '../../db/pg-schema.js';

/**
 * What every PostgreSQL sub-store runs its statements on: the pool (`PgDb`) or one open transaction.
 * Both are drizzle `PgDatabase`s, so a sub-store is written once and bound to either; calling
 * `transaction` on a transaction opens a savepoint, so a sub-store's own multi-statement writes nest.
 */
export type PgExecutor = PgDatabase<NodePgQueryResultHKT, typeof pgSchema, ExtractTablesWithRelations<typeof pgSchema>>;
