import type pg from 'pg';

type QueryFn = (config: unknown, values?: unknown, callback?: unknown) => unknown;

/** What `begin` answers; drizzle's transaction ignores it. */
const BEGUN = Object.freeze({ command: 'BEGIN', rowCount: null, oid: null, rows: [], fields: [] });

/** Whether a call is drizzle's `begin` of a transaction: the text alone, no parameters, no callback. */
function isBegin(config: unknown, values: unknown, callback: unknown): boolean {
  if (callback !== undefined || typeof config !== 'object' || config === null) return false;
  const text = (config as { text?: unknown }).text;
  const params = Array.isArray(values) ? values : (config as { values?: unknown }).values;
  return (
    typeof text === 'string' &&
    text.trim().toLowerCase() === 'begin' &&
    (params === undefined || (Array.isArray(params) && params.length === 0))
  );
}

/**
 * Sends a transaction's `begin` in the same round trip as its first statement (issue 40: a mention opens
 * about five transactions on PostgreSQL, and each `begin` was a round trip of its own, with nothing to
 * wait for). The connection must be in node-postgres's pipeline mode (`pipeline: true`): a query is
 * written as soon as it is issued, each with its own Sync, and the answers come back in order. So `begin`
 * is written at once and answered here at once; the first statement after it is written right behind it
 * and its promise settles only with `begin`'s (a failed `begin` fails that statement, so the transaction
 * body never runs outside a transaction unnoticed). The server runs them in order as before: the
 * statements are exactly those of an unpipelined transaction, only the waiting is gone.
 */
export function pipelineBegin(client: pg.PoolClient): void {
  const query = client.query.bind(client) as QueryFn;
  let pendingBegin: Promise<unknown> | null = null;
  const pipelined: QueryFn = (config, values, callback) => {
    if (isBegin(config, values, callback)) {
      const begun = query(config, values) as Promise<unknown>;
      // Awaited with the next statement; this catch only keeps a failure from being reported unhandled meanwhile.
      begun.catch(() => undefined);
      pendingBegin = begun;
      return Promise.resolve(BEGUN);
    }
    const begun = pendingBegin;
    if (begun === null || callback !== undefined) return query(config, values, callback);
    pendingBegin = null;
    const result = query(config, values) as Promise<unknown>;
    return Promise.all([begun, result]).then(([, r]) => r);
  };
  (client as unknown as { query: QueryFn }).query = pipelined;
}
