import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { ChannelRef } from '../src/chat/conversation-ref.js';
import { systemClock } from '../src/clock.js';
import { closeDatabase, openDatabase } from '../src/db/client.js';
import { silentLogger } from '../src/logger.js';
import type { ScheduleLauncher } from '../src/schedules/schedule-launcher.js';
import { createScheduling } from '../src/schedules/scheduling.js';
import { createSqliteStore } from '../src/composition/sqlite-store.js';
import type { Benchmark } from './benchmark.js';

const ARMED = 10_000;
const ARM_ROUNDS = 5;
const FIRE_BATCH = 300;
const config = { MIN_INTERVAL_MINUTES: 5, MAX_SCHEDULES_PER_CHANNEL: 50, MISSED_GRACE_MINUTES: 60 };
const DAY = 86_400_000;

/** Inserts active schedules straight into SQLite: `dueAt(i)` gives each one's next run. */
function seed(path: string, count: number, dueAt: (i: number) => number): void {
  const db = openDatabase(path);
  const ins = db.$client.prepare(
    `insert into schedules (platform, workspace, channel, target, conversation_id, prompt, kind, spec, timezone, status, anchor_at, next_run_at, created_by, created_at, updated_at)
     values ('memory', 'W1', ?, 'channel', null, 'bench prompt', ?, ?, ?, 'active', ?, ?, 'bench', ?, ?)`,
  );
  const now = Date.now();
  db.$client.transaction(() => {
    for (let i = 0; i < count; i++) {
      const at = dueAt(i);
      const kind = i % 3 === 0 ? 'cron' : i % 3 === 1 ? 'interval' : 'once';
      const spec =
        kind === 'cron'
          ? `${i % 60} ${i % 24} * * *`
          : kind === 'interval'
            ? String(5 + (i % 500))
            : new Date(at).toISOString();
      ins.run(`C${i % 400}`, kind, spec, i % 2 === 0 ? 'Europe/Berlin' : 'America/New_York', now, at, now, now);
    }
  })();
  closeDatabase(db);
}

const idleLauncher: ScheduleLauncher = { queueInConversation: async () => {}, startInChannel: async () => {} };

/** Start-up arming: open the database, build the scheduling stack, `start` — timed end to end. */
async function armMs(dir: string): Promise<{ worst: number; median: number }> {
  const path = join(dir, 'arm.db');
  let seedRandom = 42;
  const rand = () => (seedRandom = (seedRandom * 48271) % 2147483647) / 2147483647;
  seed(path, ARMED, () => Date.now() + DAY + Math.floor(rand() * 30 * DAY));
  const times: number[] = [];
  for (let r = 0; r < ARM_ROUNDS; r++) {
    const db = openDatabase(path);
    const t0 = performance.now();
    const { scheduler } = createScheduling({
      store: createSqliteStore(db, systemClock).schedules,
      clock: systemClock,
      logger: silentLogger(),
      config,
    });
    const report = await scheduler.start(idleLauncher);
    times.push(performance.now() - t0);
    if (report.armed !== ARMED) throw new Error(`armed ${report.armed} of ${ARMED}`);
    await scheduler.stop();
    closeDatabase(db);
  }
  times.sort((a, b) => a - b);
  return { worst: times[times.length - 1]!, median: times[Math.floor(times.length / 2)]! };
}

/**
 * Real timers (node-schedule): 300 schedules due over ~1.5 s — a third of them at the same
 * instant — next to 10 000 armed far-future ones; the error is launch time minus due time.
 */
async function fireErrorMs(dir: string): Promise<{ worst: number; p50: number }> {
  const path = join(dir, 'fire.db');
  const base = Date.now() + 1_000;
  const due = (i: number) => (i < FIRE_BATCH ? (i % 3 === 0 ? base + 500 : base + i * 5) : base + DAY + i * 1000);
  seed(path, FIRE_BATCH + ARMED, due);
  const db = openDatabase(path);
  const dueById = new Map<number, number>(
    db.$client
      .prepare('select id, next_run_at as at from schedules')
      .all()
      .map((r) => [(r as { id: number }).id, (r as { at: number }).at]),
  );
  const errors: number[] = [];
  let resolveAll!: () => void;
  const allFired = new Promise<void>((r) => (resolveAll = r));
  const record = (id: number) => {
    errors.push(Date.now() - dueById.get(id)!);
    if (errors.length === FIRE_BATCH) resolveAll();
  };
  const launcher: ScheduleLauncher = {
    queueInConversation: async (_c: string, _p: string, id: number) => record(id),
    startInChannel: async (_c: ChannelRef, _p: string, id: number) => record(id),
  };
  const { scheduler } = createScheduling({
    store: createSqliteStore(db, systemClock).schedules,
    clock: systemClock,
    logger: silentLogger(),
    config,
  });
  await scheduler.start(launcher);
  const timeout = setTimeout(() => resolveAll(), 10_000);
  await allFired;
  clearTimeout(timeout);
  await scheduler.stop();
  closeDatabase(db);
  if (errors.length < FIRE_BATCH) throw new Error(`only ${errors.length} of ${FIRE_BATCH} schedules fired`);
  errors.sort((a, b) => a - b);
  return { worst: errors[errors.length - 1]!, p50: errors[Math.floor(errors.length / 2)]! };
}

export const benchmark: Benchmark = {
  name: 'schedules',
  figures: ['schedules_arm_ms', 'schedule_fire_error_ms'],
  async run() {
    const dir = mkdtempSync(join(tmpdir(), 'errand-bench-sched-'));
    try {
      const arm = await armMs(dir);
      const fire = await fireErrorMs(dir);
      return [
        {
          name: 'schedules_arm_ms',
          value: arm.worst,
          unit: 'ms',
          detail: `worst of ${ARM_ROUNDS} start-ups arming ${ARMED} active schedules (median ${arm.median.toFixed(1)} ms); target < 1000`,
        },
        {
          name: 'schedule_fire_error_ms',
          value: fire.worst,
          unit: 'ms',
          detail: `worst launch delay over ${FIRE_BATCH} real timers (p50 ${fire.p50} ms), ${ARMED} more armed; target < 100`,
        },
      ];
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
