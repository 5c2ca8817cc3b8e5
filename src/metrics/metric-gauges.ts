/** The gauges read from the database at scrape time. */
export interface GaugeReadings {
  /** Runs running or waiting for an answer (`errand_runs_active`). */
  readonly runsActive: number;
  /** To-do items waiting to start, blocked or not (`errand_tasks_pending`). */
  readonly tasksPending: number;
}
