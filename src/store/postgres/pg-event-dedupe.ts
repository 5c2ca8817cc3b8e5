import { lt, sql } from 'drizzle-orm';
import { processedEvents } from '../../db/pg-schema.js';
import type { EventDedupe } from '../event-dedupe.js';
import type { PgExecutor } from './pg-executor.js';
import { prepared } from './pg-prepared.js';

const firstSightOf = prepared((d) =>
  d
    .insert(processedEvents)
    .values({ key: sql.placeholder('key'), receivedAt: sql.placeholder('now') })
    .onConflictDoNothing()
    .returning({ key: processedEvents.key }),
);

/**
 * De-duplication on PostgreSQL: `insert … on conflict do nothing` on the primary key. Two processes
 * receiving the same event race on the key; the loser's insert waits for the winner's commit and
 * then inserts nothing, so exactly one sees a first sight.
 */
export function createPgEventDedupe(db: PgExecutor): EventDedupe {
  return {
    async firstSight(key, now) {
      const rows = await firstSightOf(db, { key, now });
      return rows.length === 1;
    },
    async prune(before) {
      const rows = await db
        .delete(processedEvents)
        .where(lt(processedEvents.receivedAt, before))
        .returning({ key: processedEvents.key });
      return rows.length;
    },
  };
}
