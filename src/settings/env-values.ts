import { z } from 'zod';

/*
 * The kinds of value the environment holds, as zod fields: each reads the raw string (unset and empty alike mean
 * "not given"), applies its default, and says in its error what was expected and what was found, so that a
 * mistyped .env names the variable and the fix (config.ts gathers the problems of every variable at once).
 */

/** A flag: true/false, yes/no, on/off, 1/0 (any case); empty or unset: `fallback`. */
export const boolish = (fallback: boolean) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v.trim() === '') return fallback;
      const s = v.trim().toLowerCase();
      if (['1', 'true', 'yes', 'on'].includes(s)) return true;
      if (['0', 'false', 'no', 'off'].includes(s)) return false;
      ctx.addIssue({ code: 'custom', message: `expected true or false, got "${v}"` });
      return z.NEVER;
    });

/** A whole number within [min, max]; empty or unset: `fallback`. */
export const int = (fallback: number, min: number, max: number) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v.trim() === '') return fallback;
      const n = Number(v.trim());
      if (!Number.isInteger(n)) {
        ctx.addIssue({ code: 'custom', message: `expected a whole number, got "${v}"` });
        return z.NEVER;
      }
      if (n < min || n > max) {
        ctx.addIssue({ code: 'custom', message: `expected a number from ${min} to ${max}, got ${n}` });
        return z.NEVER;
      }
      return n;
    });

/** A TCP port (0: any free one); empty or unset: none. */
export const optionalPort = z
  .string()
  .optional()
  .transform((v, ctx) => {
    if (v === undefined || v.trim() === '') return undefined;
    const n = Number(v.trim());
    if (!Number.isInteger(n) || n < 0 || n > 65535) {
      ctx.addIssue({ code: 'custom', message: `expected a port number from 0 to 65535, got "${v}"` });
      return z.NEVER;
    }
    return n;
  });

/** Trimmed text; empty or unset: none (so `FOO=` in .env means unset, as people expect). */
export const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

/** An http(s) URL, named in the error by what it is for. */
export const url = (what: string) =>
  optionalString.refine((v) => v === undefined || /^https?:\/\/[^\s]+$/.test(v), {
    message: `expected an http(s) URL for ${what}, e.g. http://127.0.0.1:8080/`,
  });

/** An IANA timezone Intl knows; empty or unset: UTC. */
export const timezone = z
  .string()
  .optional()
  .transform((v, ctx) => {
    const tz = v === undefined || v.trim() === '' ? 'UTC' : v.trim();
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: tz });
      return tz;
    } catch {
      ctx.addIssue({
        code: 'custom',
        message: `"${tz}" is not an IANA timezone (e.g. Europe/Berlin, America/New_York, UTC)`,
      });
      return z.NEVER;
    }
  });
