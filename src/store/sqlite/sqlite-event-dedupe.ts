import type { Db } from '../../db/client.js';
import type { EventDedupe } from '../event-dedupe.js';
import type { Synchronous } from './synchronous.js';

/** De-duplication on SQLite: one INSERT OR IGNORE. */

export function createSqliteEventDedupe(db: Db): Synchronous<EventDedupe> {
  const insert = db.$client.prepare('insert or ignore into processed_events (key, received_at) values (?, ?)');
  const prune = db.$client.prepare('delete from processed_events where received_at < ?');
  return {
    firstSight: (key, now) => insert.run(key, now).changes === 1,
    prune: (before) => prune.run(before).changes,
  };
}
