import type { Db } from '../db/client.js';

/**
 * Remembers inbound event keys in the database, so a platform redelivery — even one after a
 * restart — is recognised. `firstSight` is one INSERT OR IGNORE: atomic and cheap.
 */
export interface EventDedupe {
  /** True the first time a key is seen, false for every repeat. */
  firstSight(key: string, now: number): boolean;
  /** Forgets keys older than `before` (platforms stop redelivering after minutes). */
  prune(before: number): number;
}

export function createEventDedupe(db: Db): EventDedupe {
  const insert = db.$client.prepare('insert or ignore into processed_events (key, received_at) values (?, ?)');
  const prune = db.$client.prepare('delete from processed_events where received_at < ?');
  return {
    firstSight: (key, now) => insert.run(key, now).changes === 1,
    prune: (before) => prune.run(before).changes,
  };
}
