/** Where a run's first trace is kept (`run_traces`), so the run resumed later, here or elsewhere, links to it. */
export interface RunTraceStore {
  /** The `traceparent` the run's first execution ran under, or null when none was recorded. */
  traceOf(runId: string): Promise<string | null>;
  /** Records the run's first trace; a later call for the same run keeps the first. */
  recordTrace(runId: string, traceparent: string): Promise<void>;
  /**
   * The deployment's key named `name` (`deployment_keys`): the one stored, after storing `fresh` when there is
   * none yet. The first process to ask wins; every process on the database then reads the same key.
   */
  deploymentKey(name: string, fresh: string): Promise<string>;
}
