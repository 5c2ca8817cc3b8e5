/** The fewest random bytes ERRAND_SECRET_KEY must hold: AES-256 needs 32, and a shorter key is guessable sooner. */
export const MIN_SECRET_KEY_BYTES = 32;

/**
 * Reads ERRAND_SECRET_KEY as hex (an even number of 0-9a-f) or base64 / base64url. Returns the bytes, or a
 * sentence saying what is wrong, never the key itself, so the answer can go into a start-up error.
 */
export function decodeSecretKey(text: string): { ok: true; key: Buffer } | { ok: false; problem: string } {
  const s = text.trim();
  let key: Buffer | null = null;
  if (/^[0-9a-fA-F]+$/.test(s) && s.length % 2 === 0) key = Buffer.from(s, 'hex');
  else if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(s)) key = Buffer.from(s.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (key === null)
    return { ok: false, problem: 'expected hex or base64 text (generate one with: openssl rand -base64 32)' };
  if (key.length < MIN_SECRET_KEY_BYTES) {
    return {
      ok: false,
      problem: `expected at least ${MIN_SECRET_KEY_BYTES} random bytes, got ${key.length} (generate one with: openssl rand -base64 32)`,
    };
  }
  return { ok: true, key };
}
