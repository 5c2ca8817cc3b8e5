import { z } from 'zod';
import { createKeyedLookup } from '../../src/chat/keyed-lookup.js';
import { callSlack, type WebClient } from './slack-api.js';

const userInfoSchema = z.object({
  user: z.object({
    name: z.string().optional(),
    real_name: z.string().optional(),
    tz: z.string().nullable().optional(),
    is_bot: z.boolean().optional(),
    profile: z.object({ display_name: z.string().optional(), real_name: z.string().optional() }).optional(),
  }),
});

/** What Errand needs to know about a Slack user. */
export interface UserProfile {
  /** What people see: display name, else real name, else the handle; null when Slack has none. */
  readonly name: string | null;
  /** IANA timezone, null when Slack has none or an unknown one. */
  readonly tz: string | null;
}

export interface UserProfiles {
  /** The user's profile from `users.info`; cached, also when fields are empty. Throws on failure. */
  fetch(userId: string): Promise<UserProfile>;
  /** The cached timezone, without a call. */
  cachedTimezone(userId: string): string | undefined;
}

const isIana = (tz: string): boolean => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
};

const nonEmpty = (...names: (string | undefined)[]): string | null =>
  names.find((n) => n !== undefined && n.trim() !== '')?.trim() ?? null;

/**
 * Users' names and timezones from one `users.info` call: names label history for the model,
 * timezones make "every weekday at 9" mean 9 where the person is. One call per user per `ttlMs`
 * (people rename and travel); concurrent asks share the call; failures are not cached.
 */
export function createUserProfiles(client: WebClient, ttlMs = 6 * 60 * 60 * 1000, capacity = 10_000): UserProfiles {
  const profiles = createKeyedLookup<UserProfile>({
    capacity,
    ttlMs,
    load: async (userId) => {
      const { user } = await callSlack('users.info', () => client.users.info({ user: userId }), userInfoSchema);
      return {
        name: nonEmpty(user.profile?.display_name, user.profile?.real_name, user.real_name, user.name),
        tz: user.tz && isIana(user.tz) ? user.tz : null,
      };
    },
  });
  return {
    cachedTimezone: (userId) => profiles.peek(userId)?.tz ?? undefined,
    fetch: (userId) => profiles.get(userId),
  };
}
