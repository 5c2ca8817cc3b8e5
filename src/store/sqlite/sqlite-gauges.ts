import type { Db } from '../../db/client.js';
import type { GaugeReadings } from '../../metrics/metric-gauges.js';

/**
 * Prepares the two counting queries once. Their WHERE clauses repeat the partial indexes'
 * conditions word for word (`runs_one_active_per_conversation`, `tasks_open_idx`), so SQLite
 * counts entries of those small indexes instead of scanning the tables.
 */
export function createSqliteGaugeReader(db: Db): () => GaugeReadings {
  const runsStmt = db.$client
    .prepare("select count(*) as n from runs where status in ('running', 'waiting_user')")
    .pluck();
  const tasksStmt = db.$client
    .prepare("select count(*) as n from tasks where status in ('pending', 'in_progress') and status = 'pending'")
    .pluck();
  return () => ({ runsActive: Number(runsStmt.get()), tasksPending: Number(tasksStmt.get()) });
}
