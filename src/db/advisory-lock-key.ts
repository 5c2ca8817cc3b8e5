import { createHash } from 'node:crypto';

/**
 * The 64-bit key PostgreSQL advisory locks take, derived from a readable name so every process of
 * every version agrees on it without a registry of magic numbers. Returned as a decimal string:
 * node-postgres sends it as `$1::bigint` without losing precision.
 */
export function advisoryLockKey(name: string): string {
  return createHash('sha256').update(`errand:${name}`).digest().readBigInt64BE(0).toString();
}
