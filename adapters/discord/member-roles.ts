import type { GuildMember } from 'discord.js';

/**
 * A member's role ids, for access rules that name `discord:role:<id>`. Message authors come as
 * GuildMember (roles resolved against the guild's cache); interaction members and members read
 * through REST come raw, with ids only. The @everyone role (id = guild id) is left out: listing it
 * would mean everyone.
 */
export function memberRoleIds(
  member: GuildMember | { readonly roles: readonly string[] } | null | undefined,
  guildId: string | null,
): string[] {
  if (!member) return [];
  const roles = member.roles;
  const ids = 'cache' in roles ? [...roles.cache.keys()] : roles;
  return ids.filter((id) => id !== guildId);
}

/** `{ roles }` only when there are any, so events without roles stay as they were. */
export function rolesOf(ids: readonly string[]): { roles?: readonly string[] } {
  return ids.length > 0 ? { roles: ids } : {};
}
