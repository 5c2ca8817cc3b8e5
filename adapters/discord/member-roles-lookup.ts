import { DiscordAPIError, RESTJSONErrorCodes, Routes } from 'discord.js';
import { z } from 'zod';
import { AdapterError } from '../../src/errors.js';
import { memberRoleIds } from './member-roles.js';

/** A person's current role ids in a guild, read from Discord; [] when they are no longer a member. */
export type MemberRolesLookup = (guildId: string, userId: string) => Promise<readonly string[]>;

export interface MemberRolesLookupOptions {
  /** GET on the REST API; failures are thrown as AdapterError with the DiscordAPIError as cause. */
  get(what: string, route: `/${string}`): Promise<unknown>;
  now(): number;
  /** How long an answer is reused; one catch-up after a restart (at most a minute) reads each person once. */
  ttlMs?: number;
}

const memberSchema = z.object({ roles: z.array(z.string()) });

/** A catch-up reads at most this long (app.ts CATCH_UP_LIMITS.totalMs), so each person's roles are read once per catch-up. */
const TTL_MS = 60_000;

/** Errors that say the person is not (or no longer) in the guild: no roles, not a failure. */
const NOT_A_MEMBER: ReadonlySet<number | string> = new Set<number | string>([
  RESTJSONErrorCodes.UnknownMember,
  RESTJSONErrorCodes.UnknownUser,
]);

const isNotAMember = (err: unknown) =>
  err instanceof AdapterError && err.cause instanceof DiscordAPIError && NOT_A_MEMBER.has(err.cause.code);

/**
 * Roles of the authors of messages read from history (the catch-up after a restart). Discord's
 * GET /channels/{id}/messages carries no `member` (only gateway MESSAGE_CREATE does), so the roles
 * come from GET /guilds/{guild}/members/{user} (no privileged intent needed), read once per person
 * for a catch-up and not kept longer: a role taken away later must not go on counting. A failed read
 * is not remembered and is thrown, so the caller skips the conversation rather than refuse the person.
 */
export function createMemberRolesLookup(options: MemberRolesLookupOptions): MemberRolesLookup {
  const ttlMs = options.ttlMs ?? TTL_MS;
  const cache = new Map<string, { at: number; roles: Promise<readonly string[]> }>();
  const read = async (guildId: string, userId: string): Promise<readonly string[]> => {
    try {
      const parsed = memberSchema.safeParse(
        await options.get('guild member lookup', Routes.guildMember(guildId, userId)),
      );
      if (!parsed.success)
        throw new AdapterError('Discord guild member lookup returned an unexpected response', { cause: parsed.error });
      return memberRoleIds(parsed.data, guildId);
    } catch (err) {
      if (isNotAMember(err)) return [];
      throw err;
    }
  };
  return (guildId, userId) => {
    const now = options.now();
    for (const [key, entry] of cache) if (now - entry.at >= ttlMs) cache.delete(key);
    const key = `${guildId}:${userId}`;
    const hit = cache.get(key);
    if (hit) return hit.roles;
    const roles = read(guildId, userId);
    cache.set(key, { at: now, roles });
    roles.catch(() => {
      if (cache.get(key)?.roles === roles) cache.delete(key);
    });
    return roles;
  };
}
