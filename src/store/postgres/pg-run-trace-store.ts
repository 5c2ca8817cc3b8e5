import { eq } from 'drizzle-orm';
import { runTraces } from '../../db/pg-schema.js';
import type { RunTraceStore } from '../../telemetry/run-trace-store.js';
import type { PgExecutor } from './pg-executor.js';

/** Run traces on PostgreSQL: one row per run, the first trace kept. */
export function createPgRunTraceStore(db: PgExecutor): RunTraceStore {
  return {
    async traceOf(runId) {
      const [row] = await db.select({ traceparent: runTraces.traceparent }).from(runTraces).where(eq(runTraces.runId, runId));
      return row?.traceparent ?? null;
    },
    async recordTrace(runId, traceparent) {
      await db.insert(runTraces).values({ runId, traceparent }).onConflictDoNothing();
    },
  };
}
