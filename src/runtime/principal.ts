import type { Person } from '../access/access-policy.js';
import type { RunRow, TaskRow } from '../db/schema.js';

/**
 * The person a run acts for (DESIGN.md "On whose behalf"): stored with the run when it was claimed, else (a run
 * older than that column) its task's. Null only for work older than principals that named nobody.
 */
export function principalOf(platform: string, run: Pick<RunRow, 'principal' | 'principalRoles'>, task: Pick<TaskRow, 'requestedBy' | 'requesterRoles'> | null): Person | null {
  const userId = run.principal ?? task?.requestedBy ?? null;
  if (userId === null) return null;
  const roles = run.principal !== null ? run.principalRoles : (task?.requesterRoles ?? null);
  return roles && roles.length > 0 ? { platform, userId, roles } : { platform, userId };
}
