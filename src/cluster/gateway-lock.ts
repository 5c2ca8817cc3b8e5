import pg from 'pg';
import type { Clock } from '../clock.js';
import { advisoryLockKey } from '../db/advisory-lock-key.js';
import type { Logger } from '../logger.js';

export interface GatewayLockOptions {
  /** DATABASE_URL: the lock lives in a session, so it needs a connection of its own, outside the pool. */
  url: string;
  processId: string;
  clock: Clock;
  logger: Logger;
  /** What is locked; processes that pass the same name compete (default `discord-gateway`). */
  name?: string;
  /** How often a standby tries to take the lock, and the holder checks its connection (default 5 000 ms). */
  retryMs?: number;
}

export interface GatewayLock {
  /** Makes the first attempt (resolves after it) and keeps trying every `retryMs` while not holding. */
  start(): Promise<void>;
  /** True while this process holds the lock. */
  readonly held: boolean;
  /** Called each time this process takes the lock: connect the gateway now. */
  onAcquired(handler: () => void): void;
  /** Called when the lock is lost (its connection dropped): disconnect the gateway now, another process may hold it. */
  onLost(handler: () => void): void;
  /** Releases the lock (if held) and stops trying; onLost is not called. */
  close(): Promise<void>;
}

/**
 * One holder cluster-wide, for what only one process may do (the Discord gateway connection). Built on a
 * session advisory lock: the server releases it the moment the holder's connection ends, so a crashed or
 * partitioned process loses it without any timeout, and a standby takes it at its next attempt.
 * Not a fence: a holder cut off from the database learns of the loss only when its connection fails or its
 * next check times out (within about two retry intervals), while the server frees the lock once TCP
 * keepalive gives up on the holder (about four retry intervals); the gap is small but not zero.
 */
export function createGatewayLock(options: GatewayLockOptions): GatewayLock {
  const { url, processId, clock, logger } = options;
  const key = advisoryLockKey(options.name ?? 'discord-gateway');
  const retryMs = options.retryMs ?? 5000;
  const keepaliveSeconds = Math.max(1, Math.ceil(retryMs / 1000));
  const acquired: (() => void)[] = [];
  const lost: (() => void)[] = [];
  let client: pg.Client | null = null;
  let held = false;
  let closed = false;
  let timer: unknown = null;

  const call = (handlers: (() => void)[], what: string) => {
    for (const h of handlers) {
      try {
        h();
      } catch (err) {
        logger.error({ err }, `gateway lock ${what} handler failed`);
      }
    }
  };

  const drop = (c: pg.Client, err?: Error) => {
    if (client !== c) return;
    client = null;
    void c.end().catch(() => undefined);
    if (held) {
      held = false;
      logger.warn({ err }, 'lost the gateway lock: its database connection ended');
      if (!closed) call(lost, 'onLost');
    }
  };

  const connect = async (): Promise<pg.Client> => {
    // A holder whose check query hangs (a silent network partition) gives the lock up after retryMs.
    const c = new pg.Client({
      connectionString: url,
      application_name: `errand-gateway:${processId}`,
      keepAlive: true,
      keepAliveInitialDelayMillis: retryMs,
      query_timeout: retryMs,
    });
    c.on('error', (err) => drop(c, err));
    c.on('end', () => drop(c));
    client = c;
    try {
      await c.connect();
      // The server, too, notices a vanished holder within seconds rather than hours, and frees the lock.
      await c.query(
        `set tcp_keepalives_idle = ${keepaliveSeconds}; set tcp_keepalives_interval = ${keepaliveSeconds}; set tcp_keepalives_count = 3`,
      );
    } catch (err) {
      drop(c, err instanceof Error ? err : undefined);
      throw err;
    }
    return c;
  };

  /** One attempt: (re)connect, then take the lock, or, holding it, prove the connection still works. */
  const attempt = async () => {
    try {
      const c = client ?? (await connect());
      if (held) {
        await c.query('select 1');
        return;
      }
      const result = await c.query<{ ok: boolean }>('select pg_try_advisory_lock($1::bigint) as ok', [key]);
      if (result.rows[0]?.ok === true && client === c && !closed) {
        held = true;
        logger.info('took the gateway lock');
        call(acquired, 'onAcquired');
      }
    } catch (err) {
      logger.warn({ err }, 'gateway lock attempt failed; retrying');
      if (client) drop(client, err instanceof Error ? err : undefined);
    }
  };

  const loop = async () => {
    await attempt();
    if (!closed) {
      timer = clock.setTimer(() => {
        timer = null;
        void loop();
      }, retryMs);
    }
  };

  return {
    start: loop,
    get held() {
      return held;
    },
    onAcquired: (h) => void acquired.push(h),
    onLost: (h) => void lost.push(h),
    async close() {
      closed = true;
      if (timer !== null) clock.clearTimer(timer);
      const c = client;
      client = null;
      if (c && held) await c.query('select pg_advisory_unlock($1::bigint)', [key]).catch(() => undefined);
      held = false;
      await c?.end().catch(() => undefined);
    },
  };
}
