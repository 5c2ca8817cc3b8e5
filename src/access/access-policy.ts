import type { AccessSettings } from '../settings/team-settings.js';

/** Someone acting on Errand, as the access rules name them. */
export interface Person {
  readonly platform: string;
  readonly userId: string;
  /** Discord role ids of the member, where the platform gives them. */
  readonly roles?: readonly string[];
}

/** Where someone acts: the channel (the parent channel for threads) and whether it is a direct message. */
/** The person behind an inbound event, as access rules name them. */
export function personOf(platform: string, userId: string, roles: readonly string[] | undefined): Person {
  return roles && roles.length > 0 ? { platform, userId, roles } : { platform, userId };
}

export interface Place {
  readonly platform: string;
  readonly channel: string;
  readonly direct: boolean;
}

export type RefusalReason = 'not_listed' | 'channel' | 'dm_off' | 'dm_not_listed';

export type AccessDecision = { readonly allowed: true } | { readonly allowed: false; readonly reason: RefusalReason };

/** The `access` rules of the configuration file, answered in constant time (sets), for every way in. */
export interface AccessPolicy {
  /** False when the file has no `access` key: everyone may do everything, as before. */
  readonly configured: boolean;
  isAdmin(person: Person): boolean;
  /** Whether this person may use Errand here (mentions, replies, DMs, commands, buttons). */
  check(person: Person, place: Place): AccessDecision;
  /** Whether this person may create schedules that post into a channel. */
  mayCreateChannelSchedules(person: Person): boolean;
  /**
   * Whether this person may use Errand at all: an admin, or listed in `users` (or there is no list), whatever the
   * place. What a schedule's creator must still be at each fire, with their roles as they are then.
   */
  mayUse(person: Person): boolean;
  /** The user ids named as admins on `platform` (members of an admin role are not named, so not listed). */
  adminsOn(platform: string): readonly string[];
}

const ALLOWED: AccessDecision = { allowed: true };

/** The keys a person matches: `platform:user` and, on Discord, `discord:role:<id>` per role. */
function keysOf(person: Person): string[] {
  const keys = [`${person.platform}:${person.userId}`];
  for (const role of person.roles ?? []) keys.push(`${person.platform}:role:${role}`);
  return keys;
}

/** Builds the policy from the settings; absent settings give the open policy. */
export function createAccessPolicy(settings: AccessSettings | undefined): AccessPolicy {
  if (!settings) {
    return {
      configured: false,
      isAdmin: () => false,
      check: () => ALLOWED,
      mayCreateChannelSchedules: () => true,
      mayUse: () => true,
      adminsOn: () => [],
    };
  }
  const admins = new Set(settings.admins);
  const users = settings.users ? new Set(settings.users) : null;
  const channels = settings.channels ? new Set(settings.channels) : null;
  const matches = (set: ReadonlySet<string>, person: Person) => keysOf(person).some((k) => set.has(k));
  const isAdmin = (person: Person) => admins.size > 0 && matches(admins, person);
  return {
    configured: true,
    isAdmin,
    check(person, place) {
      if (isAdmin(person)) return ALLOWED;
      const listed = users === null || matches(users, person);
      if (place.direct) {
        if (settings.directMessages === 'off') return { allowed: false, reason: 'dm_off' };
        if (settings.directMessages === 'allowlist' && (users === null || !matches(users, person)))
          return { allowed: false, reason: 'dm_not_listed' };
        return listed ? ALLOWED : { allowed: false, reason: 'not_listed' };
      }
      if (channels !== null && !channels.has(`${place.platform}:${place.channel}`))
        return { allowed: false, reason: 'channel' };
      return listed ? ALLOWED : { allowed: false, reason: 'not_listed' };
    },
    mayCreateChannelSchedules(person) {
      return settings.schedules === 'everyone' || isAdmin(person);
    },
    mayUse(person) {
      return isAdmin(person) || users === null || matches(users, person);
    },
    adminsOn(platform) {
      return [...admins].flatMap((key) => {
        const [keyPlatform, userId, ...rest] = key.split(':');
        return keyPlatform === platform && userId !== undefined && userId !== 'role' && rest.length === 0
          ? [userId]
          : [];
      });
    },
  };
}

/** The short private explanation someone refused gets (no operator detail, no list of who is allowed). */
export function refusalText(reason: RefusalReason): string {
  switch (reason) {
    case 'not_listed':
      return "Sorry, you're not on the list of people who can use Errand here. Ask an admin of this workspace if you need access.";
    case 'channel':
      return "Sorry, Errand isn't enabled in this channel. Ask an admin, or use a channel where it is.";
    case 'dm_off':
      return "Sorry, Errand doesn't take direct messages here. Mention it in a channel where it is enabled.";
    case 'dm_not_listed':
      return 'Sorry, direct messages with Errand are limited to listed people. Ask an admin, or mention it in a channel.';
  }
}
