import type pg from 'pg';

type QueryFn = (config: unknown, values?: unknown, callback?: unknown) => unknown;

/** One read waiting for its batch. */
interface Queued {
  readonly config: unknown;
  readonly values: unknown;
  resolve(result: unknown): void;
  reject(err: unknown): void;
}

/** The text of a query config (a string, or an object with `text`). */
function textOf(config: unknown): string | undefined {
  if (typeof config === 'string') return config;
  const text = typeof config === 'object' && config !== null ? (config as { text?: unknown }).text : undefined;
  return typeof text === 'string' ? text : undefined;
}

/**
 * Whether a statement is a plain read: a `select` that locks no row and calls none of PostgreSQL's own
 * functions (advisory locks, `pg_notify`, the statistics views), so it never waits on another transaction
 * and may share a connection with other reads.
 */
function isPlainRead(text: string | undefined): boolean {
  if (text === undefined || !/^\s*select\b/i.test(text)) return false;
  return !/\bfor\s+(no\s+key\s+update|update|share|key\s+share)\b/i.test(text) && !/\bpg_/i.test(text);
}

/** Whether a failed query left its connection unusable (not an error the server answered with). */
function breaksConnection(err: unknown): boolean {
  return !(err instanceof Error && 'severity' in err);
}

/**
 * Sends the plain reads issued on the pool within one turn of the event loop on one pooled connection, one
 * behind the other without waiting (issue 40, fifth round). The pool is in node-postgres's pipeline mode: each
 * read is written with its own Sync and answered in order, so each is still its own statement (autocommitted,
 * failing alone), but a run's context reads (summaries, transcript, memories) cost one connection hand-out
 * and one wake-up of one server backend, not one each. Anything else (writes, locking reads, a single read)
 * goes to the pool as before.
 */
export function batchPoolReads(pool: pg.Pool): void {
  const query = pool.query.bind(pool) as QueryFn;
  let queued: Queued[] = [];

  const flush = async (): Promise<void> => {
    const batch = queued;
    queued = [];
    if (batch.length === 1) {
      const only = batch[0]!;
      return void (query(only.config, only.values) as Promise<unknown>).then(only.resolve, only.reject);
    }
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (err) {
      for (const q of batch) q.reject(err);
      return;
    }
    let broken: Error | undefined;
    const sent = batch.map((q) =>
      (client.query(q.config as pg.QueryConfig, q.values as unknown[]) as Promise<unknown>).then(q.resolve, (err) => {
        if (breaksConnection(err)) broken ??= err instanceof Error ? err : new Error(String(err));
        q.reject(err);
      }),
    );
    await Promise.all(sent);
    client.release(broken);
  };

  const batched: QueryFn = (config, values, callback) => {
    if (callback !== undefined || typeof values === 'function' || !isPlainRead(textOf(config)))
      return query(config, values, callback);
    return new Promise((resolve, reject) => {
      queued.push({ config, values, resolve, reject });
      if (queued.length === 1) setImmediate(() => void flush());
    });
  };
  (pool as unknown as { query: QueryFn }).query = batched;
}
