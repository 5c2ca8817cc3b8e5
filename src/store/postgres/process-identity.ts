import { hostname } from 'node:os';
import pg from 'pg';
import { createProcessId } from './process-id.js';
import { advisoryLockKey } from '../../db/advisory-lock-key.js';
import { DatabaseError } from '../../errors.js';

/** The name this process records as `runs.owner`, held for as long as the process lives. */
export interface ProcessIdentity {
  readonly processId: string;
  /** Whether the name is the stable one (a restart reuses it) rather than a one-off fallback. */
  readonly stable: boolean;
  release(): Promise<void>;
}

/**
 * Claims a stable owner name on the shared database: ERRAND_PROCESS_ID when set, else the host name.
 * A restarted process gets the same name back, so at start-up it recovers the runs its predecessor left
 * `running` at once instead of waiting for their leases to run out. The name is held by a session
 * advisory lock on a connection of its own, so two live processes never share one: a second process
 * on the same host falls back to a one-off name (host:pid:random), and a duplicate ERRAND_PROCESS_ID is
 * refused. The server frees the lock the moment the holder's connection ends (a crash included).
 */
export async function claimProcessIdentity(url: string, configured: string | undefined): Promise<ProcessIdentity> {
  const preferred = configured ?? hostname();
  const client = new pg.Client({
    connectionString: url,
    application_name: `errand ${preferred}`.slice(0, 63),
    keepAlive: true,
  });
  client.on('error', () => undefined);
  await client.connect();
  const release = async () => {
    await client.end().catch(() => undefined);
  };
  try {
    const result = await client.query<{ locked: boolean }>('select pg_try_advisory_lock($1::bigint) as locked', [
      advisoryLockKey(`process:${preferred}`),
    ]);
    if (result.rows[0]?.locked === true) return { processId: preferred, stable: true, release };
  } catch (err) {
    await release();
    throw err;
  }
  await release();
  if (configured !== undefined) {
    throw new DatabaseError(
      `ERRAND_PROCESS_ID=${configured} is in use by another running Errand process on this database. Give each process its own ERRAND_PROCESS_ID, or leave it unset.`,
    );
  }
  return { processId: createProcessId(), stable: false, release: async () => undefined };
}
