import type { Person } from '../access/access-policy.js';

/** The person behind an inbound event, as access rules name them. */
export function personOf(platform: string, userId: string, roles: readonly string[] | undefined): Person {
  return roles && roles.length > 0 ? { platform, userId, roles } : { platform, userId };
}
