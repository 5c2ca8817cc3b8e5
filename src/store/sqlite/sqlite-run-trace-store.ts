import { z } from 'zod';
import type { Clock } from '../../clock.js';
import type { Db } from '../../db/client.js';
import type { RunTraceStore } from '../../telemetry/run-trace-store.js';
import type { Synchronous } from './synchronous.js';

const row = z.object({ traceparent: z.string() }).optional();
const keyRow = z.object({ value: z.string() });

/** Run traces on SQLite: one row per run, the first trace kept. */
export function createSqliteRunTraceStore(db: Db, clock: Clock): Synchronous<RunTraceStore> {
  const s = db.$client;
  const addKey = s.prepare(
    'insert into deployment_keys (name, value, created_at) values (?, ?, ?) on conflict (name) do nothing',
  );
  const getKey = s.prepare('select value from deployment_keys where name = ?');
  const get = s.prepare('select traceparent from run_traces where run_id = ?');
  const put = s.prepare('insert into run_traces (run_id, traceparent) values (?, ?) on conflict (run_id) do nothing');
  return {
    traceOf: (runId) => row.parse(get.get(runId))?.traceparent ?? null,
    recordTrace: (runId, traceparent) => void put.run(runId, traceparent),
    deploymentKey(name, fresh) {
      addKey.run(name, fresh, clock.now());
      return keyRow.parse(getKey.get(name)).value;
    },
  };
}
