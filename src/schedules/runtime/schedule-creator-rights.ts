import type { AccessPolicy } from '../../access/access-policy.js';
import type { ScheduleRights } from '../schedule-rights.js';
import type { MemberRolesCapability } from '../../chat/member-roles.js';
import { sharedWorkspaceOf } from '../../chat/workspace-of.js';
import type { ScheduleRow } from '../../db/schema.js';
import type { StoredPrincipal } from '../../run-records/run-store.js';
import { personOf } from '../../access/access-policy.js';

/** Whether a schedule's run may go on at this fire, and for whom. */
export type CreatorVerdict =
  | { readonly kind: 'allowed'; readonly principal: StoredPrincipal | null }
  | { readonly kind: 'refused'; readonly reason: string };

export interface CreatorRightsDeps {
  readonly access: AccessPolicy;
  readonly rights: ScheduleRights;
  /** A platform's member roles (absent where it has none): the creator's are read from it at each fire. */
  readonly memberRoles: (platform: string) => MemberRolesCapability | undefined;
}

/**
 * A schedule runs with its creator's rights as they are at fire time (DESIGN.md "Private stays private"), never a
 * copy taken when it was made: their Discord roles are read from the platform now (a DM, in no server, has none),
 * then they must still be allowed to use Errand (`access.users`, or an admin) and, for a schedule that posts into a
 * channel, to create such schedules (`access.schedules`). The principal handed on carries the roles just read.
 * Rejects when the roles cannot be read now (the platform unreachable): the fire is tried again later.
 */
export function creatorRightsAtFire(deps: CreatorRightsDeps): (schedule: ScheduleRow) => Promise<CreatorVerdict> {
  return async (schedule) => {
    // Made by the agent before runs had principals: nobody to check, as before.
    if (schedule.createdBy === 'agent') return { kind: 'allowed', principal: null };
    const lookup = deps.memberRoles(schedule.platform);
    const roles =
      lookup && sharedWorkspaceOf(schedule) !== null
        ? await lookup.rolesOf(schedule.workspace, schedule.createdBy)
        : [];
    const person = personOf(schedule.platform, schedule.createdBy, roles);
    if (!deps.access.mayUse(person)) {
      return {
        kind: 'refused',
        reason: `its creator <@${schedule.createdBy}> may no longer use Errand (not allowed by access.users any more${lookup ? ', with the roles they have now' : ''})`,
      };
    }
    if (deps.rights.refusal(person, { row: schedule, place: null }) !== null) {
      return {
        kind: 'refused',
        reason: `its creator <@${schedule.createdBy}> may no longer run schedules that post into a channel (access.schedules allows only admins, and they are not one now)`,
      };
    }
    return { kind: 'allowed', principal: { userId: schedule.createdBy, roles: roles.length > 0 ? roles : null } };
  };
}
