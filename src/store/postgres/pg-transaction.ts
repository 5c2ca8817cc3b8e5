import { NodePgSession, NodePgTransaction } from 'drizzle-orm/node-postgres';
import type pg from 'pg';
import type { PgDb } from '../../db/pg-client.js';
import type { PgExecutor } from './pg-executor.js';

/** The three statements of a transaction, as node-postgres configs built once (`begin` pipelined: pg-pipelined-begin.ts). */
const BEGIN = { text: 'begin' };
const COMMIT = { text: 'commit' };
const ROLLBACK = { text: 'rollback' };

/** The parts of drizzle's node-postgres session a transaction's executor is made from. */
interface SessionParts {
  readonly dialect: unknown;
  readonly schema: unknown;
  readonly options: unknown;
}

/** Per pooled connection: a drizzle transaction executor bound to it, made once (see `runTransaction`). */
const executors = new WeakMap<pg.PoolClient, PgExecutor>();

/** The drizzle executor of `client`, made at its first transaction and kept while the connection lives. */
function executorOf(db: PgDb, client: pg.PoolClient): PgExecutor {
  let ex = executors.get(client);
  if (ex === undefined) {
    const { dialect, schema, options } = (db as unknown as { session: SessionParts }).session;
    type Ctor<T> = new (...args: unknown[]) => T;
    const session = new (NodePgSession as unknown as Ctor<unknown>)(client, dialect, schema, options);
    ex = new (NodePgTransaction as unknown as Ctor<PgExecutor>)(dialect, session, schema);
    executors.set(client, ex);
  }
  return ex;
}

/**
 * Runs `body` in one transaction on one pooled connection, as drizzle's `transaction` does (`begin`, the body,
 * `commit`; `rollback` when the body or the commit fails), without what drizzle builds for each one (issue 40,
 * fifth round): a `NodePgSession`, a `NodePgTransaction` (a `PgDatabase`, with a relational query builder for
 * every table), and `begin`/`commit` built from `sql` templates into prepared queries. The executor the body
 * gets is made from one kept per connection: a new object each transaction (so what is recorded per
 * transaction by executor, like the conversation locks it holds, ends with it), inheriting that connection's
 * session and drizzle's transaction methods (a nested `transaction` is a savepoint, as before). A connection
 * whose `rollback` failed is destroyed, not pooled: its session may still be inside the transaction.
 */
export async function runTransaction<T>(db: PgDb, body: (ex: PgExecutor) => Promise<T>): Promise<T> {
  const client = await db.$client.connect();
  let broken: Error | undefined;
  try {
    const ex = Object.create(executorOf(db, client)) as PgExecutor;
    await client.query(BEGIN);
    try {
      const result = await body(ex);
      await client.query(COMMIT);
      return result;
    } catch (err) {
      await client.query(ROLLBACK).catch((e: unknown) => {
        broken = e instanceof Error ? e : new Error(String(e));
      });
      throw err;
    }
  } finally {
    client.release(broken);
  }
}
