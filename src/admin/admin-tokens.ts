import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** A fresh secret for a sign-in link or a session cookie: 32 random bytes, base64url. */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** What the database keeps of a secret: its sha256, hex. A stolen table opens no session and spends no link. */
export function secretHash(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/**
 * The CSRF token of a session: an HMAC of a fixed label keyed by the session's secret, so it needs no storage,
 * is worthless without the cookie, and cannot be worked out from the stored hash.
 */
export function csrfTokenOf(sessionSecret: string): string {
  return createHmac('sha256', sessionSecret).update('errand web console csrf').digest('base64url');
}

/** Compares a submitted CSRF token with the session's in constant time. */
export function csrfMatches(sessionSecret: string, submitted: string): boolean {
  const expected = Buffer.from(csrfTokenOf(sessionSecret));
  const given = Buffer.from(submitted);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
