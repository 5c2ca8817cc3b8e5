import type { Person } from '../access/access-policy.js';
import type { AdminPrincipal, AdminSessionStore } from './admin-session-store.js';
import { newSecret, secretHash } from './admin-tokens.js';
import { personFromKey } from './console-people.js';

/** How long a sign-in link works. */
export const LINK_TTL_MS = 10 * 60_000;
/** How long a session lasts. */
export const SESSION_TTL_MS = 12 * 60 * 60_000;

/** Where sign-in links point and who may use them. */
export interface AdminSignInOptions {
  readonly store: AdminSessionStore;
  now(): number;
  /** `${PUBLIC_URL}`, or `http://127.0.0.1:<WEB_PORT>` when PUBLIC_URL is unset. */
  baseUrl(): string;
  /** Whether this person may use the web console now (console-people.ts). */
  mayUse(person: Person): boolean;
}

/** A signed-in person, as every request of the console sees them. */
export interface ConsoleUser {
  readonly key: string;
  readonly person: Person;
}

export type Redeemed =
  | { readonly kind: 'signed_in'; readonly sessionSecret: string; readonly user: ConsoleUser }
  | { readonly kind: 'expired' | 'used' | 'unknown' | 'not_admin' };

/** Links from `/admin`, and the sessions they open. */
export interface AdminSignIn {
  /** A new single-use link for `person` (who must be allowed: callers check `mayUse` first). */
  issueLink(person: Person): Promise<string>;
  /** Spends a link's secret and opens a session: the cookie's secret, and who it is. */
  redeem(linkSecret: string): Promise<Redeemed>;
  /** The person of a session, checked again on every request: null when it expired, or they are no admin any more. */
  user(sessionSecret: string): Promise<ConsoleUser | null>;
  signOut(sessionSecret: string): Promise<void>;
  mayUse(person: Person): boolean;
}

const keyOf = (p: Person) => `${p.platform}:${p.userId}`;

function userOf(principal: AdminPrincipal, mayUse: (p: Person) => boolean): ConsoleUser | null {
  const person = personFromKey(principal.person, principal.roles);
  return person && mayUse(person) ? { key: principal.person, person } : null;
}

/** The sign-in service over the shared store; every secret is stored only as its hash. */
export function createAdminSignIn(o: AdminSignInOptions): AdminSignIn {
  return {
    mayUse: (person) => o.mayUse(person),
    async issueLink(person) {
      const secret = newSecret();
      const now = o.now();
      await o.store.addLink(
        secretHash(secret),
        { person: keyOf(person), roles: person.roles ? [...person.roles] : null },
        now + LINK_TTL_MS,
        now,
      );
      return `${o.baseUrl()}/admin/sign-in/${secret}`;
    },
    async redeem(linkSecret) {
      const now = o.now();
      const taken = await o.store.takeLink(secretHash(linkSecret), now);
      if (taken.outcome !== 'taken') return { kind: taken.outcome };
      const user = userOf(taken.principal, o.mayUse);
      if (!user) return { kind: 'not_admin' };
      const sessionSecret = newSecret();
      await o.store.addSession(secretHash(sessionSecret), taken.principal, now + SESSION_TTL_MS, now);
      return { kind: 'signed_in', sessionSecret, user };
    },
    async user(sessionSecret) {
      const principal = await o.store.session(secretHash(sessionSecret), o.now());
      return principal ? userOf(principal, o.mayUse) : null;
    },
    signOut: (sessionSecret) => o.store.endSession(secretHash(sessionSecret)),
  };
}
