import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Seals secrets (OAuth tokens, PKCE verifiers, client secrets) before they reach the database, so a copy of
 * the database alone reveals nothing. AES-256-GCM: each value gets a fresh 96-bit nonce and an
 * authentication tag, so a changed or swapped ciphertext fails to open instead of yielding garbage.
 */
export interface SecretBox {
  /** The sealed form of `plain`: `v1.<nonce>.<tag>.<ciphertext>` in base64url. `context` must be given again to open it. */
  seal(plain: string, context: string): string;
  /**
   * The plain text, or null when the value was not sealed by this key for this context (another key, another
   * row, or tampered with). Null rather than a throw: a stored secret that no longer opens is an expected
   * outcome (the operator rotated the key) and the caller asks the person to sign in again.
   */
  open(sealed: string, context: string): string | null;
}

/**
 * A SecretBox on ERRAND_SECRET_KEY's bytes. The AES key is derived with HKDF-SHA256 (so a key longer than
 * 32 bytes is used whole). `context` is bound as additional authenticated data: a token copied into another
 * person's row does not open there.
 */
export function createSecretBox(keyMaterial: Buffer): SecretBox {
  const key = Buffer.from(hkdfSync('sha256', keyMaterial, Buffer.alloc(0), 'errand secret box v1', 32));
  return {
    seal(plain, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [
        VERSION,
        iv.toString('base64url'),
        cipher.getAuthTag().toString('base64url'),
        body.toString('base64url'),
      ].join('.');
    },
    open(sealed, context) {
      const parts = sealed.split('.');
      if (parts.length !== 4 || parts[0] !== VERSION) return null;
      const [, iv, tag, body] = parts as [string, string, string, string];
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'), {
          authTagLength: TAG_BYTES,
        });
        decipher.setAAD(Buffer.from(context, 'utf8'));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        return null;
      }
    },
  };
}
