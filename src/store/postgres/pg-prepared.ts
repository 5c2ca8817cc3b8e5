import { nameOf } from '../../db/pg-named-statements.js';
import type { PgExecutor } from './pg-executor.js';

/** A drizzle query prepared once: `execute` fills its placeholders, runs it and maps its rows. */
interface Executable<T> {
  execute(values?: Record<string, unknown>): Promise<T>;
}

/** A drizzle query builder that can be prepared (select, insert, update, delete). */
interface Preparable<T> {
  toSQL(): { sql: string };
  prepare(name: string): Executable<T>;
}

/** A statement of the store's hot path: built once, run on any executor with its placeholders' values. */
export type PreparedStatement<T> = (ex: PgExecutor, values?: Record<string, unknown>) => Promise<T>;

/**
 * Builds a statement's drizzle query once (with `sql.placeholder`s for what varies) and runs that on
 * whichever executor a call has: the pool, or the connection of an open transaction. Building a query
 * with drizzle (its expression tree, then its text) cost more CPU than PostgreSQL spent executing it:
 * about a third of Errand's CPU per mention on PostgreSQL (bench/OVERHEAD.md, issue 40). The text and
 * the row mapping are drizzle's own, so results are typed and read as before.
 *
 * drizzle binds a prepared query to the client of the session that prepared it; the query is the same
 * on every connection, so each run uses a view of it whose `client` is the executor's (the pool, or the
 * transaction's connection). A placeholder for a nullable jsonb column must not carry `null`: drizzle
 * encodes it as the JSON text `null`; such columns are written with a plain value instead.
 */
export function prepared<T>(build: (db: PgExecutor) => Preparable<T>): PreparedStatement<T> {
  let query: Executable<T> | undefined;
  return (ex, values = {}) => {
    if (query === undefined) {
      const built = build(ex);
      const name = nameOf(built.toSQL().sql);
      if (name === undefined) throw new Error('too many distinct statement texts to name another prepared statement');
      query = built.prepare(name);
    }
    const onThis = Object.create(query, { client: { value: clientOf(ex) } }) as Executable<T>;
    return onThis.execute(values);
  };
}

/** The node-postgres client under a drizzle executor: `pg.Pool` for the database, a `PoolClient` for a transaction. */
function clientOf(ex: PgExecutor): unknown {
  const client = (ex as unknown as { session?: { client?: unknown } }).session?.client;
  if (client === undefined) throw new Error('a drizzle PostgreSQL executor without a node-postgres client');
  return client;
}
