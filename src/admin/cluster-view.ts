/** One Errand process as the console shows it. */
export interface ClusterProcessInfo {
  /** Its name in the cluster (`runs.owner`): ERRAND_PROCESS_ID, the host name, or a one-off name. */
  readonly id: string;
  /** When its connection to the database opened (epoch ms), where the database tells. */
  readonly since: number | null;
  /** Whether it is the process serving this page. */
  readonly self: boolean;
}

/**
 * Who is in the cluster and who holds what, as the database sees it (PostgreSQL: the processes' connections and the
 * gateway's advisory lock); a single process on SQLite is its own cluster.
 */
export interface ClusterView {
  /** False for one process on SQLite: nothing is shared. */
  readonly shared: boolean;
  processes(): Promise<ClusterProcessInfo[]>;
  /** The process holding the Discord gateway; null when none does (or Discord is not used). */
  gatewayHolder(): Promise<string | null>;
}

/** The one process of a SQLite installation. */
export function singleProcessView(name: string, holdsGateway: () => boolean, startedAt: number): ClusterView {
  return {
    shared: false,
    processes: async () => [{ id: name, since: startedAt, self: true }],
    gatewayHolder: async () => (holdsGateway() ? name : null),
  };
}
