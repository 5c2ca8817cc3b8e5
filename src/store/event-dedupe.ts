/**
 * Remembers inbound event keys in the database, so a platform redelivery — even one after a
 * restart — is recognised. `firstSight` is one INSERT OR IGNORE: atomic and cheap.
 */
export interface EventDedupe {
  /** True the first time a key is seen, false for every repeat. */
  firstSight(key: string, now: number): Promise<boolean>;
  /** Forgets keys older than `before` (platforms stop redelivering after minutes). */
  prune(before: number): Promise<number>;
}
