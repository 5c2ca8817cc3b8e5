import type pg from 'pg';
import { Column, DrizzleQueryError, is, Param, Placeholder, SQL, Subquery } from 'drizzle-orm';
import { nameOf } from '../../db/pg-named-statements.js';
import { deferredWritesOf } from '../../db/pg-deferred-writes.js';
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
 * on every connection, so each run sends its config on the executor's client (the pool, or the
 * transaction's connection), as drizzle's `execute` would (see `directRun`). A placeholder for a nullable jsonb column must not carry `null`: drizzle
 * encodes it as the JSON text `null`; such columns are written with a plain value instead.
 */
export function prepared<T>(build: (db: PgExecutor) => Preparable<T>): PreparedStatement<T> {
  let run: ((client: QueryClient, values: Record<string, unknown>) => Promise<unknown>) | undefined;
  return (ex, values = {}) => {
    if (run === undefined) {
      const built = build(ex);
      const name = nameOf(built.toSQL().sql);
      if (name === undefined) throw new Error('too many distinct statement texts to name another prepared statement');
      run = directRun(built.prepare(name) as unknown as DrizzlePrepared);
    }
    return run(clientOf(ex), values) as Promise<T>;
  };
}

/**
 * A hot-path statement written by hand (what drizzle's builders cannot write, like a data-modifying statement
 * behind a locking CTE), run as a named statement on the call's executor; its rows as node-postgres gives them.
 */
export function preparedText<R>(text: string): (ex: PgExecutor, values: unknown[]) => Promise<R[]> {
  const name = nameOf(text);
  return async (ex, values) => {
    const result = await clientOf(ex).query(name === undefined ? { text } : { name, text }, values);
    return result.rows as unknown as R[];
  };
}

/**
 * A hot-path write that may travel with the process's next statement (db/pg-deferred-writes.ts) when it is run on
 * the pool; inside a transaction, or on a pool without deferred writes, it runs at once as `preparedText` does.
 * The promise settles when PostgreSQL ran it either way.
 */
export function deferrableText(text: string): (ex: PgExecutor, values: unknown[]) => Promise<void> {
  const now = preparedText<never>(text);
  return async (ex, values) => {
    const deferred = deferredWritesOf(clientOf(ex) as unknown as pg.Pool);
    if (deferred === null) await now(ex, values);
    else await deferred.defer(text, values);
  };
}

/** What node-postgres offers both the pool and a pooled connection: a query with a config and its values. */
interface QueryClient {
  query(config: unknown, values: unknown[]): Promise<{ rows: unknown[][] }>;
}

/** The parts of drizzle's node-postgres prepared query (`NodePgPreparedQuery`) its `execute` reads. */
interface DrizzlePrepared extends Executable<unknown> {
  readonly params: unknown[];
  readonly queryString: string;
  readonly queryConfig: unknown;
  readonly rawQueryConfig: unknown;
  readonly fields?: { path: string[]; field: unknown }[];
  readonly joinsNotNullableMap?: unknown;
  readonly customResultMapper?: unknown;
}

/**
 * Runs a prepared query as drizzle's `execute` does (the same query configs, values, row mapping and
 * `DrizzleQueryError`), without what that adds around each statement: three tracing wrappers and a cache
 * check, each an async function and its promises (and on Node 20 each promise pays the store's
 * AsyncLocalStorage hook while a transaction is open), and a row mapper that finds every column's decoder
 * again for every row. A query whose rows drizzle maps into nested objects (joins) or with a mapper of its
 * own keeps drizzle's `execute`.
 */
function directRun(query: DrizzlePrepared): (client: QueryClient, values: Record<string, unknown>) => Promise<unknown> {
  const { fields, params, queryString } = query;
  const flat = fields?.every((f) => f.path.length === 1) ?? true;
  if (query.customResultMapper || query.joinsNotNullableMap || !flat) {
    return (client, values) =>
      (Object.create(query, { client: { value: client } }) as Executable<unknown>).execute(values);
  }
  const fillPlaceholders = placeholderFiller(params);
  const fail = (values: unknown[], err: unknown) => {
    throw new DrizzleQueryError(queryString, values, err as Error);
  };
  if (!fields) {
    const config = query.rawQueryConfig;
    return (client, values) => {
      const filled = fillPlaceholders(values);
      return client.query(config, filled).catch((err: unknown) => fail(filled, err));
    };
  }
  const keys = fields.map((f) => f.path[0]!);
  const decoders = fields.map((f) => decoderOf(f.field));
  const config = query.queryConfig;
  const mapRow = (row: unknown[]): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (let i = 0; i < keys.length; i++) {
      const raw = row[i];
      out[keys[i]!] = raw === null ? null : decoders[i]!.mapFromDriverValue(raw);
    }
    return out;
  };
  return (client, values) => {
    const filled = fillPlaceholders(values);
    return client.query(config, filled).then(
      (result) => result.rows.map(mapRow),
      (err: unknown) => fail(filled, err),
    );
  };
}

/**
 * drizzle's `fillPlaceholders` with each parameter's kind found once per statement instead of at every call
 * (its `is` walks the prototype chain of every parameter, twice for a parameter that is not a placeholder):
 * a placeholder takes its value, a parameter wrapping one takes its value through the column's encoder,
 * anything else is a constant of the statement. A missing value throws as drizzle's does.
 */
function placeholderFiller(params: unknown[]): (values: Record<string, unknown>) => unknown[] {
  type Slot = (values: Record<string, unknown>) => unknown;
  const valueOf = (name: string, values: Record<string, unknown>) => {
    if (!(name in values)) throw new Error(`No value for placeholder "${name}" was provided`);
    return values[name];
  };
  const slots: Slot[] = params.map((p): Slot => {
    if (is(p, Placeholder)) return (values) => valueOf(p.name, values);
    if (is(p, Param) && is(p.value, Placeholder)) {
      const { name } = p.value;
      const encoder = p.encoder as { mapToDriverValue(value: unknown): unknown };
      return (values) => encoder.mapToDriverValue(valueOf(name, values));
    }
    return () => p;
  });
  return (values) => slots.map((slot) => slot(values));
}

/** How drizzle's `mapResultRow` finds a selected field's decoder: a column, an SQL expression, a subquery, or an aliased SQL. */
function decoderOf(field: unknown): { mapFromDriverValue(value: unknown): unknown } {
  type Decoder = { mapFromDriverValue(value: unknown): unknown };
  if (is(field, Column)) return field as unknown as Decoder;
  if (is(field, SQL)) return (field as unknown as { decoder: Decoder }).decoder;
  if (is(field, Subquery)) return (field as unknown as { _: { sql: { decoder: Decoder } } })._.sql.decoder;
  return (field as { sql: { decoder: Decoder } }).sql.decoder;
}

/** The node-postgres client under a drizzle executor: `pg.Pool` for the database, a `PoolClient` for a transaction. */
function clientOf(ex: PgExecutor): QueryClient {
  const client = (ex as unknown as { session?: { client?: QueryClient } }).session?.client;
  if (client === undefined) throw new Error('a drizzle PostgreSQL executor without a node-postgres client');
  return client;
}
