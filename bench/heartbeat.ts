import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { closeDatabase, openDatabase } from '../src/db/client.js';
import { createSqliteStore } from '../src/composition/sqlite-store.js';
import type { LlmClient } from '../src/agent/llm-client.js';
import { FakeClock } from '../tests/fakes/fake-clock.js';
import { MemoryAdapter } from '../tests/fakes/memory-adapter.js';
import type { Benchmark } from './benchmark.js';

const CONVERSATIONS = 100_000;
const TASKS_PER_CONVERSATION = 10;
const TICKS = 50;

/**
 * Fills a database with 100 000 conversations and 1 000 000 tasks — mostly finished, some blocked,
 * 5 000 conversations parked on a question (their pending tasks must be skipped), 2 000 with a
 * ready task — then times the heartbeat tick (question expiry, ready lookup, claims, event pruning).
 */
export function seed(path: string): void {
  const db = openDatabase(path);
  const s = db.$client;
  const insConv = s.prepare(
    "insert into conversations (id, platform, workspace, channel, thread, created_at, updated_at) values (?, 'memory', 'W1', ?, ?, 0, 0)",
  );
  const insTask = s.prepare(
    "insert into tasks (conversation_id, title, description, status, sequence, blocked_by, blocked, created_by, created_at, updated_at) values (?, 't', 'd', ?, ?, ?, ?, 'agent', 0, 0)",
  );
  const insRun = s.prepare(
    "insert into runs (id, conversation_id, task_id, status, question, ask_expires_at, started_at, updated_at) values (?, ?, ?, 'waiting_user', ?, ?, 0, 0)",
  );
  const question = JSON.stringify({
    question: 'q',
    options: [],
    toolCallId: 'c',
    askedAt: 0,
    messageId: null,
    userId: null,
  });
  s.transaction(() => {
    for (let c = 0; c < CONVERSATIONS; c++) {
      const id = `memory:W1:C${c % 500}:T${c}`;
      insConv.run(id, `C${c % 500}`, `T${c}`);
      const waiting = c % 20 === 7;
      const ready = c % 50 === 3;
      const blocked = c % 3 === 0 && !ready;
      let firstId = 0;
      for (let k = 0; k < TASKS_PER_CONVERSATION; k++) {
        const last = k === TASKS_PER_CONVERSATION - 1;
        const status =
          waiting && k === 0 ? 'in_progress' : last && (ready || blocked || waiting) ? 'pending' : 'completed';
        const r = insTask.run(
          id,
          status,
          k + 1,
          blocked && last ? JSON.stringify([firstId]) : '[]',
          blocked && last ? 1 : 0,
        );
        if (k === 0) firstId = Number(r.lastInsertRowid);
      }
      if (waiting) insRun.run(`run-${c}`, id, firstId, question, Date.UTC(2030, 0, 1));
    }
  })();
  closeDatabase(db);
}

/** A model that never answers until the run is aborted: runs stay in flight while ticks are timed. */
const hangingModel: LlmClient = {
  complete: ({ signal }) =>
    new Promise((_resolve, reject) =>
      signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }),
    ),
};

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

export const benchmark: Benchmark = {
  name: 'heartbeat',
  figures: ['heartbeat_tick_ms'],
  async run() {
    const dir = mkdtempSync(join(tmpdir(), 'errand-bench-hb-'));
    try {
      const path = join(dir, 'errand.db');
      seed(path);
      const config = loadConfig({
        OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
        DATABASE_PATH: path,
        HEARTBEAT_SECONDS: '3600',
      });
      const db = openDatabase(path);
      const clock = new FakeClock(Date.UTC(2026, 0, 1));
      const busy: number[] = [];
      const idle: number[] = [];
      let started = 0;
      for (let i = 0; i < TICKS + 1; i++) {
        const adapter = new MemoryAdapter();
        const app = await createApp({
          config,
          adapters: [adapter],
          clock,
          llm: hangingModel,
          store: createSqliteStore(db, clock),
        });
        await adapter.start(app.dispatcher);
        const t0 = performance.now();
        const report = await app.heartbeat.tick();
        const t1 = performance.now();
        const t2 = performance.now();
        await app.heartbeat.tick();
        const t3 = performance.now();
        if (i > 0) {
          busy.push(t1 - t0);
          idle.push(t3 - t2);
          started += report.started;
        }
        await app.coordinator.shutdown();
        db.$client.exec(
          "update tasks set status = 'completed' where status = 'in_progress' and id in (select task_id from runs where status = 'running'); update runs set status = 'completed' where status = 'running';",
        );
      }
      closeDatabase(db);
      busy.sort((a, b) => a - b);
      idle.sort((a, b) => a - b);
      return [
        {
          name: 'heartbeat_tick_ms',
          value: percentile(busy, 0.5),
          unit: 'ms',
          detail: `median tick that finds and claims ${started / TICKS} ready tasks, over ${CONVERSATIONS} conversations / ${CONVERSATIONS * TASKS_PER_CONVERSATION} tasks, ${TICKS} ticks (target < 10); p95 ${percentile(busy, 0.95).toFixed(2)} ms; tick with every slot busy: ${percentile(idle, 0.5).toFixed(3)} ms`,
        },
      ];
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
