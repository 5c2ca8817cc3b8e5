import { count, sql } from 'drizzle-orm';
import { runs, tasks } from '../../db/pg-schema.js';
import type { GaugeReadings } from '../../metrics/metric-gauges.js';
import type { PgExecutor } from './pg-executor.js';

/** The two gauges, counted from the partial indexes' ranges; `count()` maps PostgreSQL's bigint string to a number. */
export async function readPgGauges(db: PgExecutor): Promise<GaugeReadings> {
  const [active] = await db
    .select({ n: count() })
    .from(runs)
    .where(sql`${runs.status} in ('running', 'waiting_user')`);
  const [pending] = await db
    .select({ n: count() })
    .from(tasks)
    .where(sql`${tasks.status} in ('pending', 'in_progress') and ${tasks.status} = 'pending'`);
  return { runsActive: active?.n ?? 0, tasksPending: pending?.n ?? 0 };
}
