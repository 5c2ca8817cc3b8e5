import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

/**
 * This process's name in the cluster: what `runs.owner` holds and what shows in pg_stat_activity.
 * Host and pid tell an operator which process it is; the random part keeps a restarted process with
 * a recycled pid (common in containers, where it is often 1) from passing for its predecessor.
 */
export function createProcessId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
}
