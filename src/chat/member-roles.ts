/**
 * A person's roles in a workspace as the platform has them now (Discord guild roles), for rights that must hold
 * when work runs, not when it was asked for: a schedule's creator at each fire (DESIGN.md "Private stays private").
 */
export interface MemberRolesCapability {
  /**
   * The person's role ids in `workspace`, read from the platform now (never a copy kept from earlier); [] when they
   * are no longer a member. Throws on failures that may pass (the platform unreachable): the caller tries later.
   */
  rolesOf(workspace: string, userId: string): Promise<readonly string[]>;
}
