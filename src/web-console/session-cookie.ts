import type { IncomingMessage } from 'node:http';
import { SESSION_TTL_MS } from '../admin/admin-sign-in.js';

/**
 * The session cookie: HttpOnly (no script reads it), SameSite=Strict (no other site's page sends it), Secure with the
 * `__Host-` prefix when PUBLIC_URL is https (then only this host over https gets it), 12 hours.
 */
export function cookieName(secure: boolean): string {
  return secure ? '__Host-errand_console' : 'errand_console';
}

export function sessionCookie(secret: string, secure: boolean): string {
  return `${cookieName(secure)}=${secret}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${SESSION_TTL_MS / 1000}${secure ? '; Secure' : ''}`;
}

export function clearedCookie(secure: boolean): string {
  return `${cookieName(secure)}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${secure ? '; Secure' : ''}`;
}

/** The session secret the request carries, or null. */
export function sessionSecretOf(req: IncomingMessage, secure: boolean): string | null {
  const name = cookieName(secure);
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) {
      const value = part.slice(at + 1).trim();
      return /^[A-Za-z0-9_-]{20,100}$/.test(value) ? value : null;
    }
  }
  return null;
}
