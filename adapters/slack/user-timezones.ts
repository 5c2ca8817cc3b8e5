import { z } from 'zod';
import { callSlack, type WebClient } from './slack-api.js';

const userInfoSchema = z.object({ user: z.object({ tz: z.string().nullable().optional() }) });

export interface UserTimezones {
  /** The user's IANA timezone from `users.info`; cached, also when Slack has none (null). */
  fetch(userId: string): Promise<string | null>;
  /** The cached timezone, without a call. */
  cached(userId: string): string | undefined;
}

const isIana = (tz: string): boolean => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
};

/**
 * Users' timezones, so "every weekday at 9" means 9 where the person is. One `users.info` call per
 * user per `ttlMs` (people travel); concurrent asks share the call; failures are not cached.
 */
export function createUserTimezones(client: WebClient, ttlMs = 6 * 60 * 60 * 1000, capacity = 10_000): UserTimezones {
  const cache = new Map<string, { tz: string | null; at: number }>();
  const pending = new Map<string, Promise<string | null>>();
  return {
    cached(userId) {
      return cache.get(userId)?.tz ?? undefined;
    },
    async fetch(userId) {
      const hit = cache.get(userId);
      if (hit && Date.now() - hit.at < ttlMs) return hit.tz;
      let p = pending.get(userId);
      if (!p) {
        p = callSlack('users.info', () => client.users.info({ user: userId }), userInfoSchema)
          .then(({ user }) => {
            const tz = user.tz && isIana(user.tz) ? user.tz : null;
            cache.set(userId, { tz, at: Date.now() });
            if (cache.size > capacity) cache.delete(cache.keys().next().value!);
            return tz;
          })
          .finally(() => pending.delete(userId));
        pending.set(userId, p);
      }
      return p;
    },
  };
}
