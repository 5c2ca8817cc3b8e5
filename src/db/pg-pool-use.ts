import type pg from 'pg';

/**
 * How a process's PostgreSQL pool is used, for `/metrics`: an operator sees from `waits` and `waitedSeconds`
 * whether `DATABASE_POOL_SIZE` is too small for the traffic (statements queueing for a connection), which the
 * pool's instantaneous counts alone almost never show at scrape time.
 */
export interface PoolUse {
  /** Connections the pool may hold (`DATABASE_POOL_SIZE`). */
  readonly size: number;
  /** Connections open and serving a statement or a transaction now. */
  readonly busy: number;
  /** Connections open and unused now. */
  readonly idle: number;
  /** Statements or transactions waiting for a connection now. */
  readonly waiting: number;
  /** Since start: how many checkouts found the whole pool taken (in use, or promised to callers queued before). */
  readonly waits: number;
  /** Since start: the seconds those checkouts waited, together. */
  readonly waitedSeconds: number;
}

type Connect = (cb?: (err: Error | undefined, client?: pg.PoolClient, done?: unknown) => void) => unknown;

const readers = new WeakMap<pg.Pool, () => PoolUse>();

/**
 * Counts the checkouts of `pool` that wait for a busy connection, and for how long (`now` in milliseconds). Every
 * statement on the pool and every transaction goes through `connect` (node-postgres's `pool.query` calls it too), so
 * wrapping it sees them all; a checkout that opens a new connection is not a wait for the pool's size.
 */
export function watchPoolUse(pool: pg.Pool, now: () => number = () => performance.now()): void {
  let waits = 0;
  let waitedMs = 0;
  const connect = pool.connect.bind(pool) as Connect;
  const watched: Connect = (cb) => {
    // Waits for a release when the connections in use (opening ones included) and the callers already queued
    // (each promised an idle connection, a new one, or a release) take the whole pool. Counted at the call: idle
    // connections are handed out a tick later, so a burst of calls in one tick all still see them idle.
    if (pool.totalCount - pool.idleCount + pool.waitingCount < pool.options.max!) return connect(cb);
    waits++;
    const start = now();
    const waited = () => void (waitedMs += now() - start);
    if (cb)
      return connect((err, client, done) => {
        waited();
        cb(err, client, done);
      });
    return (connect() as Promise<pg.PoolClient>).finally(waited);
  };
  (pool as unknown as { connect: Connect }).connect = watched;
  readers.set(pool, () => ({
    size: pool.options.max!,
    busy: pool.totalCount - pool.idleCount,
    idle: pool.idleCount,
    waiting: pool.waitingCount,
    waits,
    waitedSeconds: waitedMs / 1000,
  }));
}

/** The use of a pool opened by `openPostgres` (null for one it did not watch). */
export function poolUse(pool: pg.Pool): PoolUse | null {
  return readers.get(pool)?.() ?? null;
}
