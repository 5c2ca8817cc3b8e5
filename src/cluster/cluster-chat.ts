import type { GatewayGate } from '../chat/gateway-gate.js';
import type { PostPacer } from '../chat/post-pacer.js';
import type { Clock } from '../clock.js';
import { closePostgres, openPostgres, type PgDb } from '../db/pg-client.js';
import type { Logger } from '../logger.js';
import { createChannelPacing } from './channel-pacing.js';
import { createLockGatewayGate } from './lock-gateway-gate.js';
import type { ClusterPeers } from './wake-channel.js';
import { createGatewayLock } from './gateway-lock.js';

const DEFAULT_RETRY_MS = 5000;

export interface ClusterChatOptions {
  /** DATABASE_URL: the gateway lock keeps a connection of its own to it. */
  url: string;
  /** The store's pool; pacing is one upsert per post on it. */
  db: PgDb;
  processId: string;
  clock: Clock;
  logger: Logger;
  /** The other processes as the cluster runtime sees them: alone, a process paces its posts in memory. */
  peers?: ClusterPeers;
  /** GATEWAY_LOCK_RETRY_SECONDS in ms: how often a standby tries to take the gateway over (default 5 000). */
  gatewayRetryMs?: number;
}

/** What the chat adapters of one process need to behave as one bot among several processes. */
export interface ClusterChat {
  /** For the Discord adapter: only the holder connects the gateway. */
  readonly gateway: GatewayGate;
  /** Called each time this process took the gateway over after its start: run the catch-up (`App.catchUp`) then. */
  onGatewayTakenOver(handler: () => void): void;
  /** For every adapter's outbound queue: posts to one channel spaced across processes. */
  readonly pacer: PostPacer;
}

/**
 * Builds the gateway gate and the shared post pacer of a process on PostgreSQL. Nothing connects until
 * the adapter joins the gate; the adapter's `stop` leaves it (releasing the lock).
 */
export function createClusterChat(options: ClusterChatOptions): ClusterChat {
  const lock = createGatewayLock({
    url: options.url,
    processId: options.processId,
    clock: options.clock,
    logger: options.logger,
    ...(options.gatewayRetryMs === undefined ? {} : { retryMs: options.gatewayRetryMs }),
  });
  const gateway = createLockGatewayGate(lock, {
    clock: options.clock,
    logger: options.logger,
    retryMs: options.gatewayRetryMs ?? DEFAULT_RETRY_MS,
  });
  return {
    gateway,
    pacer: createChannelPacing(options.db, options.clock, options.peers),
    onGatewayTakenOver: (handler) => gateway.onTakenOver(handler),
  };
}

/** A ClusterChat on a small pool of its own, for a composition root that builds the adapters before the store. */
export interface OwnedClusterChat extends ClusterChat {
  /** Closes the pacer's pool; call after the adapters stopped (their `stop` leaves the gateway gate). */
  close(): Promise<void>;
}

/**
 * Opens the pacer's connections (two: pacing is one short upsert per post) and builds the ClusterChat.
 * Throws DatabaseError naming DATABASE_URL when the database cannot be reached.
 */
export async function openClusterChat(options: Omit<ClusterChatOptions, 'db'>): Promise<OwnedClusterChat> {
  const db = await openPostgres(options.url, {
    poolSize: 2,
    applicationName: `errand-pacing:${options.processId}`,
    logger: options.logger,
  });
  return { ...createClusterChat({ ...options, db }), close: () => closePostgres(db) };
}
