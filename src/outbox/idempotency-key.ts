/**
 * The idempotency key of an outbox row, which the platform keeps with the post so a second try
 * can find (or, on Discord, return) the first. Short because Discord nonces allow 25 characters.
 */
export const idempotencyKeyOf = (id: number): string => `e${id}`;
