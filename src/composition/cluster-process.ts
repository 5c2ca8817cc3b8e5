import { systemClock } from '../clock.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { Cluster } from '../runtime/process/cluster-hooks.js';
import { openStore } from './open-store.js';
import type { PostgresStore } from './pg-store.js';
import type { ErrandStore } from './errand-store.js';
import { openClusterChat, type OwnedClusterChat } from '../cluster/cluster-chat.js';
import { createPostgresCluster } from '../cluster/cluster-runtime.js';

/** What a process sharing a PostgreSQL database needs beyond a single process: the shared store, leases and wake-ups, the gateway gate and shared pacing. */
export interface ClusterProcess {
  readonly store: ErrandStore;
  readonly cluster: Cluster;
  readonly chat: OwnedClusterChat;
  /** Closes the pacer's and the store's connections; call after the app stopped. */
  close(): Promise<void>;
}

/**
 * Opens everything DATABASE_URL asks for, with one owner name throughout: the runs the store starts
 * are leased under the same name the cluster runtime renews, or another process would take them over.
 * Throws DatabaseError naming DATABASE_URL when the database cannot be used.
 */
export async function openClusterProcess(
  config: Config & { DATABASE_URL: string },
  logger: Logger,
): Promise<ClusterProcess> {
  const store = (await openStore(config, systemClock, logger)) as PostgresStore;
  const processId = store.ownership?.processId;
  if (processId === undefined) throw new Error('the PostgreSQL store opened without an owner name');
  try {
    const cluster = createPostgresCluster({
      db: store.db,
      url: config.DATABASE_URL,
      processId,
      clock: systemClock,
      logger,
      leaseMs: config.RUN_LEASE_SECONDS * 1000,
    });
    const chat = await openClusterChat({
      url: config.DATABASE_URL,
      processId,
      clock: systemClock,
      logger,
      peers: cluster.peers,
      gatewayRetryMs: config.GATEWAY_LOCK_RETRY_SECONDS * 1000,
    });
    return {
      store,
      cluster,
      chat,
      async close() {
        await chat.close().catch((err: unknown) => logger.warn({ err }, 'closing the pacing connections failed'));
        await store.close();
      },
    };
  } catch (err) {
    await store.close();
    throw err;
  }
}
