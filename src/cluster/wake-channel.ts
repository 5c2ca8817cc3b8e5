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

/**
 * Whether other Errand processes share the database right now, as the wake channel sees them: what a process alone
 * may skip (wake-ups, the shared pacing's write per post) it must do again from the moment another one appears.
 */
export interface ClusterPeers {
  /** True only while this process listens and neither the last look nor any notification since found another. */
  alone(): boolean;
  /** Called each time another process appears after this one was alone (its hello, or a look that finds it). */
  onJoined(handler: () => void): () => void;
}

/** The NOTIFY channel every Errand process listens on. */
export const WAKE_CHANNEL = 'errand_wake';
/** Each listener's `application_name` starts so (the cluster view reads the live processes from it too). */
const LISTENER_PREFIX = 'errand-wake:';
/** What a process sends once it listens, so the others know a wake-up now has someone to reach; never handed to handlers. */
const HELLO = 'hello';
/**
 * How long a wake-up skipped while alone is kept: another process's hello may reach this one a moment after that
 * process started listening, and what was skipped in between is sent to it then. Older work its start found itself.
 */
const SKIPPED_KEPT_MS = 5_000;
/** At most this many skipped wake-ups are kept (the oldest go first). */
const SKIPPED_KEPT_MAX = 100;

const payloadSchema = z.object({
  kind: z.enum([...WAKE_KINDS, HELLO]),
  conversationId: z.string().min(1),
  origin: z.string(),
});

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

export interface WakeChannel extends ClusterPeers {
  /** Connects and LISTENs; resolves once notifications flow. Throws when the database cannot be reached. */
  start(): Promise<void>;
  /**
   * Tells every process (this one included) that `conversationId` has something of `kind` (for `schedule`,
   * the key is the schedule's id). Send it after the commit that made it true.
   */
  notify(kind: WakeKind, conversationId: string): Promise<void>;
  /**
   * As `notify`, but sent only while another process may be listening: not when this process listens and the last
   * look found no other listener and no other process has spoken since (a wake-up would reach only this process,
   * which ignores its own). Resolves whether it was sent. A process that starts says so at once (`hello`), so it
   * is counted from its first moment; one that ends is forgotten at the next `lookForOthers`. A wake-up skipped a
   * moment before another process was heard or seen is sent then (that process already listened).
   */
  wakeOthers(kind: WakeKind, conversationId: string): Promise<boolean>;
  /** Looks again whether another process listens (one read of pg_stat_activity): call it now and then. */
  lookForOthers(): Promise<void>;
  /** Whether another process listens, as last seen or heard (null: not known, so `wakeOthers` sends). */
  othersListening(): boolean | null;
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
  /** Whether another process listens, as last seen; null: not known (wake-ups are sent). */
  let others: boolean | null = null;
  /** Notifications heard from other processes: one heard while a look was under way outweighs what the look read. */
  let heard = 0;
  const joinedHandlers = new Set<() => void>();

  /**
   * Records what was seen of the others. A process appearing after this one was alone is sent what was skipped
   * meanwhile (it listened already when it said hello or was seen), and announced.
   */
  const seeOthers = (now: boolean | null) => {
    const wasAlone = others === false;
    others = now;
    if (!wasAlone || now !== true) return;
    replaySkipped();
    for (const handler of joinedHandlers) {
      try {
        handler();
      } catch (err) {
        logger.error({ err }, 'a handler of another process appearing failed');
      }
    }
  };
  /** Wake-ups not sent because nobody else listened, by kind and key, with when. */
  const skipped = new Map<string, { kind: WakeKind; key: string; at: number }>();

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
    const fromSelf = parsed.origin === processId;
    if (!fromSelf) {
      seeOthers(true);
      heard += 1;
    }
    if (parsed.kind === HELLO) return;
    emit({ kind: parsed.kind, conversationId: parsed.conversationId, fromSelf });
  };

  const send = (kind: WakeKind | typeof HELLO, key: string) =>
    pool.query('select pg_notify($1, $2)', [
      WAKE_CHANNEL,
      JSON.stringify({ kind, conversationId: key, origin: processId }),
    ]);

  const skip = (kind: WakeKind, key: string) => {
    const id = `${kind}\u0000${key}`;
    skipped.delete(id);
    skipped.set(id, { kind, key, at: clock.now() });
    for (const [oldest] of skipped) {
      if (skipped.size <= SKIPPED_KEPT_MAX) break;
      skipped.delete(oldest);
    }
  };

  /** Another process listens: what was skipped lately may concern work committed after its start looked. */
  const replaySkipped = () => {
    const since = clock.now() - SKIPPED_KEPT_MS;
    const due = [...skipped.values()].filter((s) => s.at >= since);
    skipped.clear();
    for (const s of due) {
      send(s.kind, s.key).catch((err: unknown) =>
        logger.warn({ err, kind: s.kind }, 'could not send a skipped wake-up to a process that started'),
      );
    }
  };

  const lookForOthers = async (): Promise<void> => {
    const before = heard;
    const { rows } = await pool.query<{ others: boolean }>(
      `select exists (select 1 from pg_stat_activity where datname = current_database()
         and application_name like $1 and application_name <> left($2, 63)) as others`,
      [`${LISTENER_PREFIX}%`, `${LISTENER_PREFIX}${processId}`],
    );
    seeOthers(heard !== before ? true : (rows[0]?.others ?? null));
  };

  /** Once listening: tells the others, then looks whether there are any (best effort: unknown means wake-ups are sent). */
  const greet = async (): Promise<void> => {
    try {
      await send(HELLO, processId);
      await lookForOthers();
    } catch (err) {
      seeOthers(null);
      logger.warn({ err }, 'could not tell whether other processes listen; waking them on every change');
    }
  };

  const connect = async (): Promise<void> => {
    const c = new pg.Client({
      connectionString: url,
      application_name: `${LISTENER_PREFIX}${processId}`,
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
    await greet();
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

  /** While the listener is down nothing from the others is heard: not alone, as when nothing is known. */
  const alone = () => client !== null && others === false;

  return {
    start: connect,
    async notify(kind, conversationId) {
      await send(kind, conversationId);
    },
    async wakeOthers(kind, conversationId) {
      if (alone()) {
        skip(kind, conversationId);
        return false;
      }
      await send(kind, conversationId);
      return true;
    },
    lookForOthers,
    othersListening: () => others,
    alone,
    onJoined(handler) {
      joinedHandlers.add(handler);
      return () => void joinedHandlers.delete(handler);
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
