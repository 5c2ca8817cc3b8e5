import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/client.js';
import { silentLogger } from '../../src/logger.js';
import { createScheduling } from '../../src/schedules/scheduling.js';
import { createSqliteStore } from '../../src/composition/sqlite-store.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { RecordingMetrics } from '../fakes/recording-metrics.js';
import { CHANNEL, MINUTE, RecordingLauncher, START, THREAD_ID } from './schedule-fixtures.js';

function world(env: Record<string, string> = {}) {
  const db = openDatabase(':memory:');
  const clock = new FakeClock(START);
  const metrics = new RecordingMetrics();
  const config = loadConfig({ OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', ...env });
  const store = createSqliteStore(db, clock).schedules;
  const scheduling = createScheduling({ store, clock, logger: silentLogger(), config, metrics });
  return { ...scheduling, clock, metrics, launcher: new RecordingLauncher(clock, store) };
}

async function create(w: ReturnType<typeof world>, kind: 'once' | 'interval', spec: string) {
  const r = await w.service.create({
    channel: CHANNEL,
    target: 'channel',
    conversationId: THREAD_ID,
    prompt: `run ${spec}`,
    kind,
    spec,
    timezone: 'UTC',
    createdBy: 'U1',
  });
  if (!r.ok) throw new Error(r.error);
  return r.schedule;
}

describe('schedule fire metrics', () => {
  it('counts each fire as started, or failed when the launch is refused', async () => {
    const w = world();
    await w.scheduler.start(w.launcher);
    await create(w, 'interval', '10');
    await w.clock.advanceSettled(10 * MINUTE, () => w.scheduler.idle());
    await w.scheduler.idle();
    w.launcher.failWith = 'no adapter';
    await w.clock.advanceSettled(10 * MINUTE, () => w.scheduler.idle());
    await w.scheduler.idle();
    expect(w.launcher.launches).toHaveLength(2);
    expect(w.metrics.scheduleFires).toEqual(['started', 'failed']);
  });

  it('counts a fire missed beyond the grace as skipped, not started', async () => {
    const w = world({ MISSED_GRACE_MINUTES: '60' });
    await create(w, 'once', '2026-01-05T09:30');
    await w.clock.advanceSettled(3 * 60 * MINUTE, () => w.scheduler.idle());
    await w.scheduler.start(w.launcher);
    await w.clock.advanceSettled(0, () => w.scheduler.idle());
    await w.scheduler.idle();
    expect(w.launcher.launches).toEqual([]);
    expect(w.metrics.scheduleFires).toEqual(['skipped']);
  });
});
