import { afterEach, describe, expect, it } from 'vitest';
import { createPostgresCluster } from '../../src/cluster/cluster-runtime.js';
import { loadConfig } from '../../src/config.js';
import { closePostgres, openPostgres } from '../../src/db/pg-client.js';
import { createLogger } from '../../src/logger.js';
import type { Cluster } from '../../src/runtime/process/cluster-hooks.js';
import { createScheduling, type Scheduling } from '../../src/schedules/scheduling.js';
import { createPostgresStore } from '../../src/composition/pg-store.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { waitFor } from '../fakes/wait-for.js';
import { useTestDatabase } from '../support/test-database.js';
import { CHANNEL, MINUTE, RecordingLauncher, START } from './schedule-fixtures.js';

/*
 * Errand processes sharing one PostgreSQL database, reduced to what schedules need: each "process" has its
 * own pool, store, scheduler and cluster runtime (its own LISTEN connection), wired as app.ts wires them.
 * They share one fake clock, so fire times are exact; wake-ups and queries are real.
 */

const database = useTestDatabase();
const logger = createLogger('silent');
const LEASE_MS = 30_000;
/** The cluster ticks every third of the lease; each tick reviews what falls due within three ticks. */
const TICK_MS = LEASE_MS / 3;
const config = loadConfig({ OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' });
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface Proc extends Scheduling {
  readonly launcher: RecordingLauncher;
  readonly cluster: Cluster;
  /** Stops this process's scheduler and cluster runtime (as a SIGKILL would stop them, minus the lease). */
  stop(): Promise<void>;
}

/** One process; `dropWakeUps` makes every schedule wake-up it sends get lost. */
async function startProcess(name: string, clock: FakeClock, opts: { dropWakeUps?: boolean } = {}): Promise<Proc> {
  const db = await openPostgres(database.url, { poolSize: 3 });
  const store = createPostgresStore(db, clock, { ownership: { processId: name, leaseMs: LEASE_MS } });
  const cluster = createPostgresCluster({ db, url: database.url, processId: name, clock, logger, leaseMs: LEASE_MS });
  const scheduling = createScheduling({
    store: store.schedules,
    clock,
    logger,
    config,
    announce: (id) => (opts.dropWakeUps ? undefined : cluster.wake('schedule', String(id))),
  });
  const launcher = new RecordingLauncher(clock, store.schedules);
  await scheduling.scheduler.start(launcher);
  await cluster.start({
    pump: async () => undefined,
    recoverAll: async () => [],
    recoverRun: async () => null,
    schedules: scheduling.scheduler,
  });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await scheduling.scheduler.stop();
    await cluster.stop();
    await closePostgres(db);
  };
  cleanups.push(stop);
  return { ...scheduling, launcher, cluster, stop };
}

const at = (ms: number) => new Date(ms).toISOString();
const once = (proc: Proc, when: number, prompt = 'report') =>
  proc.service.create({
    channel: CHANNEL,
    target: 'channel',
    conversationId: null,
    prompt,
    kind: 'once',
    spec: at(when),
    timezone: 'UTC',
    createdBy: 'U1',
  });
const created = async (result: ReturnType<typeof once>) => {
  const r = await result;
  if (!r.ok) throw new Error(r.error);
  return r.schedule;
};

describe.skipIf(database.skip)('schedules changed in one process, across processes on PostgreSQL', () => {
  it('fires from another process a schedule made through a process that stopped before its time', async () => {
    const clock = new FakeClock(START);
    const a = await startProcess('proc-a', clock);
    const b = await startProcess('proc-b', clock);
    const schedule = await created(once(a, START + 60 * MINUTE));
    await waitFor(
      () => b.scheduler.armedAt(schedule.id) === START + 60 * MINUTE,
      10_000,
      'the other process to arm the new schedule',
    );
    await a.stop();
    await clock.advanceSettled(60 * MINUTE, () => b.scheduler.idle());
    expect(b.launcher.launches).toEqual([
      expect.objectContaining({ scheduleId: schedule.id, at: START + 60 * MINUTE, prompt: 'report' }),
    ]);
  });

  it('takes edits, pauses, resumes and deletes made through one process into account in the others at once', async () => {
    const clock = new FakeClock(START);
    const a = await startProcess('proc-a', clock);
    const b = await startProcess('proc-b', clock);
    const schedule = await created(once(a, START + 60 * MINUTE));
    const armedInB = () => b.scheduler.armedAt(schedule.id);
    await waitFor(() => armedInB() === START + 60 * MINUTE, 10_000, 'armed after the creation');

    expect((await a.service.pause(CHANNEL, schedule.id)).ok).toBe(true);
    await waitFor(() => armedInB() === null, 10_000, 'disarmed after the pause');
    expect((await a.service.resume(CHANNEL, schedule.id)).ok).toBe(true);
    await waitFor(() => armedInB() === START + 60 * MINUTE, 10_000, 're-armed after the resume');
    expect((await a.service.delete(CHANNEL, schedule.id)).ok).toBe(true);
    await waitFor(() => armedInB() === null, 10_000, 'disarmed after the delete');

    // An edit moves the time earlier: the other process fires at the new time, not the old one.
    const edited = await created(once(a, START + 60 * MINUTE, 'weekly notes'));
    await waitFor(
      () => b.scheduler.armedAt(edited.id) === START + 60 * MINUTE,
      10_000,
      'armed after the second creation',
    );
    const moved = await a.service.edit(CHANNEL, edited.id, {
      prompt: 'weekly notes, short',
      kind: 'once',
      spec: at(START + 20 * MINUTE),
      timezone: 'UTC',
    });
    expect(moved.ok).toBe(true);
    await waitFor(() => b.scheduler.armedAt(edited.id) === START + 20 * MINUTE, 10_000, 're-armed at the edited time');
    await a.stop();
    await clock.advanceSettled(20 * MINUTE, () => b.scheduler.idle());
    expect(b.launcher.launches).toEqual([
      expect.objectContaining({ scheduleId: edited.id, at: START + 20 * MINUTE, prompt: 'weekly notes, short' }),
    ]);
  });

  it('arms a schedule whose wake-up was lost at the next review, before it is due', async () => {
    const clock = new FakeClock(START);
    const a = await startProcess('proc-a', clock, { dropWakeUps: true });
    const b = await startProcess('proc-b', clock);
    const due = START + TICK_MS + 15_000;
    const schedule = await created(once(a, due));
    await a.stop();
    expect(b.scheduler.armedAt(schedule.id)).toBeNull();
    // B's next tick reviews what falls due within three ticks.
    clock.advance(TICK_MS);
    await waitFor(() => b.scheduler.armedAt(schedule.id) === due, 10_000, 'the review to arm the schedule');
    expect(clock.now()).toBeLessThan(due);
    await clock.advanceSettled(due - clock.now(), () => b.scheduler.idle());
    expect(b.launcher.launches).toEqual([expect.objectContaining({ scheduleId: schedule.id, at: due })]);
  });
});
