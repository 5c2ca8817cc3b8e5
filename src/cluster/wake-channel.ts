import pg from 'pg';
import { z } from 'zod';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';

/** What woke a process: a task queued, a question answered, a run to stop, a schedule changed (re-arm). */
export const WAKE_KINDS = ['task', 'answer', 'stop', 'schedule'] as const;
export type WakeKind = (typeof WAKE_KINDS)[number];

/**
 * A wake-up. `resync` comes after the listening connection was lost and re-established: notifications
 * sent meanwhile are gone, so the receiver re-scans the database for work instead.
 */
export type WakeEvent = { kind: WakeKind; conversationId: string; fromSelf: boolean } | { kind: 'resync' };

export type WakeHandler = (event: WakeEvent) => void | Promise<void>;

/** The NOTIFY channel every Errand process listens on. */
export const WAKE_CHANNEL = 'errand_wake';

const payloadSchema = z.object({ kind: z.enum(WAKE_KINDS), conversationId: z.string().min(1), origin: z.string() });

export interface WakeChannelOptions {
  /** DATABASE_URL: the listener needs a connection of its own, outside the pool. */
  url: string;
  /** Sends notifications, so sending works while the listener reconnects. */
  pool: pg.Pool;
  processId: string;
  clock: Clock;
  logger: Logger;
  /** Wait before reconnect attempt `n` (1, 2, …); default 250 ms doubling up to 10 s. */
  reconnectDelayMs?: (attempt: number) => number;
}

export interface WakeChannel {
  /** Connects and LISTENs; resolves once notifications flow. Throws when the database cannot be reached. */
  start(): Promise<void>;
  /**
   * Tells every process (this one included) that `conversationId` has something of `kind` (for `schedule`,
   * the key is the schedule's id). Send it after the commit that made it true.
   */
  notify(kind: WakeKind, conversationId: string): Promise<void>;
  /** Registers a handler; returns its unsubscribe. Handler errors are logged, never thrown back. */
  onWake(handler: WakeHandler): () => void;
  /** Stops listening for good. */
  close(): Promise<void>;
}

const defaultDelay = (attempt: number) => Math.min(10_000, 250 * 2 ** (attempt - 1));

/**
 * Cross-process wake-ups over PostgreSQL LISTEN/NOTIFY. Delivery is best effort and only to processes
 * listening at that moment (at most once, no replay); a dropped listener reconnects with backoff and then
 * reports `resync`, so callers treat a wake-up as a hint and the database as the truth.
 */
export function createWakeChannel(options: WakeChannelOptions): WakeChannel {
  const { url, pool, processId, clock, logger } = options;
  const delay = options.reconnectDelayMs ?? defaultDelay;
  const handlers = new Set<WakeHandler>();
  let client: pg.Client | null = null;
  let closed = false;
  let attempts = 0;
  let timer: unknown = null;

  const emit = (event: WakeEvent) => {
    for (const handler of handlers) {
      try {
        void Promise.resolve(handler(event)).catch((err: unknown) =>
          logger.error({ err, event }, 'wake handler failed'),
        );
      } catch (err) {
        logger.error({ err, event }, 'wake handler failed');
      }
    }
  };

  const onNotification = (msg: pg.Notification) => {
    if (msg.channel !== WAKE_CHANNEL) return;
    let parsed: z.infer<typeof payloadSchema>;
    try {
      parsed = payloadSchema.parse(JSON.parse(msg.payload ?? ''));
    } catch (err) {
      logger.warn({ err, payload: msg.payload }, 'ignored a malformed wake notification');
      return;
    }
    emit({ kind: parsed.kind, conversationId: parsed.conversationId, fromSelf: parsed.origin === processId });
  };

  const connect = async (): Promise<void> => {
    const c = new pg.Client({
      connectionString: url,
      application_name: `errand-wake:${processId}`,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    let dropped = false;
    const onDrop = (err?: Error) => {
      if (dropped) return;
      dropped = true;
      c.removeListener('notification', onNotification);
      void c.end().catch(() => undefined);
      if (client !== c || closed) return;
      client = null;
      logger.warn({ err }, 'the wake-up listener lost its database connection; reconnecting');
      scheduleReconnect();
    };
    c.on('error', onDrop);
    c.on('end', () => onDrop());
    c.on('notification', onNotification);
    try {
      await c.connect();
      await c.query(`listen ${WAKE_CHANNEL}`);
    } catch (err) {
      dropped = true;
      await c.end().catch(() => undefined);
      throw err;
    }
    if (closed) {
      await c.end().catch(() => undefined);
      return;
    }
    client = c;
  };

  const scheduleReconnect = () => {
    attempts += 1;
    timer = clock.setTimer(() => {
      timer = null;
      if (closed) return;
      connect().then(
        () => {
          attempts = 0;
          if (!closed) emit({ kind: 'resync' });
        },
        (err: unknown) => {
          logger.warn({ err, attempt: attempts }, 'the wake-up listener could not reconnect; retrying');
          if (!closed) scheduleReconnect();
        },
      );
    }, delay(attempts));
  };

  return {
    start: connect,
    async notify(kind, conversationId) {
      await pool.query('select pg_notify($1, $2)', [
        WAKE_CHANNEL,
        JSON.stringify({ kind, conversationId, origin: processId }),
      ]);
    },
    onWake(handler) {
      handlers.add(handler);
      return () => void handlers.delete(handler);
    },
    async close() {
      closed = true;
      if (timer !== null) clock.clearTimer(timer);
      const c = client;
      client = null;
      await c?.end().catch(() => undefined);
    },
  };
}
