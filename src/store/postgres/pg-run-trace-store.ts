import { eq } from 'drizzle-orm';
import type { Clock } from '../../clock.js';
import { deploymentKeys, runTraces } from '../../db/pg-schema.js';
import type { RunTraceStore } from '../../telemetry/run-trace-store.js';
import type { PgExecutor } from './pg-executor.js';

/** Run traces on PostgreSQL: one row per run, the first trace kept. */
export function createPgRunTraceStore(db: PgExecutor, clock: Clock): RunTraceStore {
  return {
    async traceOf(runId) {
      const [row] = await db
        .select({ traceparent: runTraces.traceparent })
        .from(runTraces)
        .where(eq(runTraces.runId, runId));
      return row?.traceparent ?? null;
    },
    async recordTrace(runId, traceparent) {
      await db.insert(runTraces).values({ runId, traceparent }).onConflictDoNothing();
    },
    async deploymentKey(name, fresh) {
      await db.insert(deploymentKeys).values({ name, value: fresh, createdAt: clock.now() }).onConflictDoNothing();
      const [row] = await db
        .select({ value: deploymentKeys.value })
        .from(deploymentKeys)
        .where(eq(deploymentKeys.name, name));
      if (!row) throw new Error(`the deployment key ${name} could not be stored`);
      return row.value;
    },
  };
}
