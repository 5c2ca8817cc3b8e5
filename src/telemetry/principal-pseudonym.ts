import { createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { decodeSecretKey } from '../secrets/secret-key.js';
import type { RunTraceStore } from './run-trace-store.js';

/** The name of the stored pseudonym key in `deployment_keys`. */
export const PSEUDONYM_KEY_NAME = 'principal-pseudonym';

/**
 * The `errand.principal` span attribute: HMAC-SHA256 of `platform:user id` under the deployment's key, 16 hex
 * digits. It groups one person's runs in a trace backend, and without the key nobody can tell whose they are —
 * an unkeyed hash of an id is undone by hashing every id of a member list.
 */
export function principalPseudonym(key: Buffer, principal: string): string {
  return createHmac('sha256', key).update(principal).digest('hex').slice(0, 16);
}

/**
 * The key of the pseudonyms. With ERRAND_SECRET_KEY set: derived from it (HKDF-SHA256 with its own label, so it is
 * never the key that seals tokens), and kept nowhere. Without it: 32 random bytes generated once and stored in the
 * database, so every process and every restart names a person alike — a key per process would split one person's
 * runs into as many pseudonyms as there are processes. Stored in the clear: the database already holds the
 * principals themselves, so whoever reads it learns nothing new from the key.
 */
export async function pseudonymKey(
  secretKey: string | undefined,
  traces: Pick<RunTraceStore, 'deploymentKey'>,
): Promise<Buffer> {
  const decoded = secretKey === undefined ? null : decodeSecretKey(secretKey);
  if (decoded?.ok)
    return Buffer.from(hkdfSync('sha256', decoded.key, Buffer.alloc(0), 'errand principal pseudonym v1', 32));
  const stored = await traces.deploymentKey(PSEUDONYM_KEY_NAME, randomBytes(32).toString('base64'));
  return Buffer.from(stored, 'base64');
}
