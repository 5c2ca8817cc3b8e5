import type pg from 'pg';
import { systemClock, type Clock } from '../clock.js';

/** How long a deferred write may wait for another statement to travel with before it goes out alone. */
const DEFAULT_DEFER_WINDOW_MS = 20;

/**
 * Writes that need not go out at once: each waits for the next statement the process sends on the pool and is
 * written just ahead of it, on the same connection in the same flight, or goes alone once the window passed.
 */
export interface DeferredWrites {
  /**
   * Queues one statement (a parameterised text, named like every other on the connection). Resolves when
   * PostgreSQL ran it, rejects with its error; the caller decides whether to wait.
   */
  defer(text: string, values: unknown[]): Promise<void>;
  /** Writes whatever waits now and resolves when it is written (failures are the deferrers' to hear). */
  flush(): Promise<void>;
}

/** The timers a window is kept with: the app's clock (tests drive it). */
export type DeferTimers = Pick<Clock, 'setTimer' | 'clearTimer'>;

interface Waiting {
  readonly text: string;
  readonly values: unknown[];
  readonly resolve: () => void;
  readonly reject: (err: unknown) => void;
}

type Connect = (cb?: (err: Error | undefined, client?: pg.PoolClient, done?: unknown) => void) => unknown;

const registry = new WeakMap<pg.Pool, DeferredWrites>();

/**
 * Lets writes of `pool` wait for company (issue 40): on PostgreSQL much of a statement's server CPU is its backend
 * waking up with cold caches (bench/OVERHEAD.md, twelfth round: a backend that slept 5 ms spends about twice the CPU
 * on the same statements), so a write that need not go out at once is better sent beside another. Every checkout of
 * the pool (a `pool.query`, a transaction) first writes what waits on the connection it hands out: the pool's
 * connections are pipelined (pg-client.ts), so the waiting statements leave in the same flight as the caller's first
 * one, each with its own Sync (a failure of one touches neither the others nor the caller's), and are answered
 * before it. A checkout made after `defer` was called therefore finds the write done (a transaction already open on
 * another connection may not). When no statement comes within `windowMs`, a connection is checked out for the
 * waiting writes alone.
 */
export function deferWritesOnPool(
  pool: pg.Pool,
  windowMs = DEFAULT_DEFER_WINDOW_MS,
  timers: DeferTimers = systemClock,
): DeferredWrites {
  let waiting: Waiting[] = [];
  let timer: unknown = null;
  /** Everything waiting, handed to whoever sends (or fails) it; the window closes with it. */
  const take = (): Waiting[] => {
    const batch = waiting;
    waiting = [];
    if (timer !== null) timers.clearTimer(timer);
    timer = null;
    return batch;
  };
  const writeOn = (client: pg.PoolClient): Promise<void> =>
    Promise.all(
      take().map((w) =>
        client.query({ text: w.text }, w.values).then(
          () => w.resolve(),
          (err: unknown) => w.reject(err),
        ),
      ),
    ).then(() => undefined);
  const connect = pool.connect.bind(pool) as Connect;
  const withWaiting: Connect = (cb) => {
    if (cb)
      return connect((err, client, done) => {
        if (!err && client && waiting.length > 0) void writeOn(client);
        cb(err, client, done);
      });
    return (connect() as Promise<pg.PoolClient>).then((client) => {
      if (waiting.length > 0) void writeOn(client);
      return client;
    });
  };
  (pool as unknown as { connect: Connect }).connect = withWaiting;
  const flush = async (): Promise<void> => {
    if (pool.ended) {
      const closed = new Error('the PostgreSQL pool closed before a deferred write was sent');
      take().forEach((w) => w.reject(closed));
      return;
    }
    if (waiting.length === 0) return;
    let client: pg.PoolClient;
    try {
      client = await (connect() as Promise<pg.PoolClient>);
    } catch (err) {
      take().forEach((w) => w.reject(err));
      return;
    }
    try {
      await writeOn(client);
    } finally {
      client.release();
    }
  };
  const deferred: DeferredWrites = {
    defer(text, values) {
      return new Promise<void>((resolve, reject) => {
        waiting.push({ text, values, resolve, reject });
        timer ??= timers.setTimer(() => {
          timer = null;
          void flush();
        }, windowMs);
      });
    },
    flush,
  };
  registry.set(pool, deferred);
  return deferred;
}

/** The deferred writes of a pool opened by `openPostgres` (null for one that has none). */
export function deferredWritesOf(pool: pg.Pool): DeferredWrites | null {
  return registry.get(pool) ?? null;
}
