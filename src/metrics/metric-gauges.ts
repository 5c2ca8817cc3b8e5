import type { PoolUse } from '../db/pg-pool-use.js';

/** The gauges read from the database at scrape time. */
export interface GaugeReadings {
  /** Runs running or waiting for an answer (`errand_runs_active`). */
  readonly runsActive: number;
  /** To-do items waiting to start, blocked or not (`errand_tasks_pending`). */
  readonly tasksPending: number;
}

/** The PostgreSQL pool's use, read in-process at scrape time (`errand_db_pool_*`); SQLite has no pool. */
export type PoolReading = PoolUse;
