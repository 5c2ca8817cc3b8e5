import type { AccessPolicy, Person } from '../access/access-policy.js';

/**
 * Who may sign in to the web console: the admins of `access.admins` (by id or Discord role). Without an `access`
 * key nobody on Slack or Discord is an admin, so only the console adapter's own user may sign in: whoever types
 * at Errand's terminal already runs it.
 */
export function mayUseConsole(access: Pick<AccessPolicy, 'configured' | 'isAdmin'>, person: Person): boolean {
  return access.isAdmin(person) || (!access.configured && person.platform === 'console');
}

/** `platform:user` → the Person the access rules read (null for a malformed key). */
export function personFromKey(key: string, roles: readonly string[] | null): Person | null {
  const at = key.indexOf(':');
  if (at <= 0 || at === key.length - 1) return null;
  return { platform: key.slice(0, at), userId: key.slice(at + 1), ...(roles && roles.length > 0 ? { roles } : {}) };
}
