import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { isSqliteStore } from '../src/composition/sqlite-store.js';
import { MemoryAdapter } from '../tests/fakes/memory-adapter.js';
import type { Benchmark } from './benchmark.js';
import { median } from './overhead-figures.js';

const CONVERSATIONS = 10_000;
const SCHEDULES = 1_000;
const ACTIVE_RUNS = 20;
const WARMUP = 30;
const REQUESTS = 200;
const STEPS = 40;

/** Fills the database as a busy installation's: conversations with finished runs and to-dos, active runs, schedules. */
function fill(db: import('better-sqlite3').Database, now: number, part: 'history' | 'active'): void {
  const conv = db.prepare(
    'insert into conversations (id, platform, workspace, channel, thread, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?)',
  );
  const task = db.prepare(
    "insert into tasks (conversation_id, title, description, status, sequence, created_by, requested_by, created_at, updated_at) values (?, ?, ?, ?, 1, 'user', ?, ?, ?)",
  );
  const run = db.prepare(
    'insert into runs (id, conversation_id, task_id, status, steps, tokens, principal, started_at, updated_at, ended_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const schedule = db.prepare(
    "insert into schedules (platform, workspace, channel, target, prompt, kind, spec, timezone, status, anchor_at, next_run_at, created_by, created_at, updated_at) values ('slack', 'T0BENCH01', ?, 'channel', ?, 'cron', '0 9 * * 1-5', 'UTC', 'active', ?, ?, 'U0BENCH01', ?, ?)",
  );
  db.transaction(() => {
    for (
      let i = part === 'history' ? 0 : CONVERSATIONS - ACTIVE_RUNS;
      i < (part === 'history' ? CONVERSATIONS - ACTIVE_RUNS : CONVERSATIONS);
      i++
    ) {
      const id = `slack:T0BENCH01:C${String(i % 200).padStart(8, '0')}:17000${String(i).padStart(5, '0')}.000100`;
      const at = now - (CONVERSATIONS - i) * 60_000;
      conv.run(
        id,
        'slack',
        'T0BENCH01',
        `C${String(i % 200).padStart(8, '0')}`,
        `17000${String(i).padStart(5, '0')}.000100`,
        at,
        at,
      );
      const active = i >= CONVERSATIONS - ACTIVE_RUNS;
      const t = task.run(
        id,
        `Request ${i}`,
        `Request ${i}`,
        active ? 'in_progress' : 'completed',
        `U${i % 50}`,
        at,
        at,
      );
      run.run(
        `run-${i}`,
        id,
        Number(t.lastInsertRowid),
        active ? 'running' : 'completed',
        3,
        1500,
        `U${i % 50}`,
        at,
        at,
        active ? null : at + 5000,
      );
    }
    for (let i = 0; part === 'history' && i < SCHEDULES; i++)
      schedule.run(`C${String(i % 200).padStart(8, '0')}`, `Scheduled prompt ${i}`, now, now + 86_400_000, now, now);
  })();
}

/**
 * The web console under a busy installation's data (SQLite, one process): the p50 time to serve the Overview
 * (health, counts, runs now, processes) with 10 000 conversations and 1 000 schedules, over HTTP as a browser gets
 * it; and how long a run's step takes to reach a page watching the runs over server-sent events (the live pages
 * poll the database every 250 ms while someone watches).
 */
export const benchmark: Benchmark = {
  name: 'web-console',
  figures: ['console_overview_ms', 'console_sse_update_ms'],
  async run() {
    const dir = mkdtempSync(join(tmpdir(), 'errand-bench-console-'));
    const file = join(dir, 'errand.json');
    writeFileSync(file, JSON.stringify({ access: { admins: ['slack:U0ADMIN01'] } }));
    const config = loadConfig({
      OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
      OPENAI_API_KEY: 'bench',
      DATABASE_PATH: join(dir, 'errand.db'),
      ERRAND_CONFIG: file,
    });
    const adapter = new MemoryAdapter('T0BENCH01', 'slack');
    const app = await createApp({ config, adapters: [adapter], webConsole: { port: 0 } });
    if (!isSqliteStore(app.store)) throw new Error('the benchmark fills a SQLite database');
    fill(app.store.db.$client, Date.now(), 'history');
    await app.start();
    // After the start: runs found running at a start are recovered as interrupted (their process died).
    fill(app.store.db.$client, Date.now(), 'active');
    try {
      const reply = await adapter.command(
        'admin',
        '',
        { platform: 'slack', workspace: 'T0BENCH01', channel: 'C00000001' },
        null,
        'U0ADMIN01',
      );
      const link = /https?:\/\/\S+/.exec(reply.text)?.[0];
      if (!link) throw new Error(`no sign-in link: ${reply.text}`);
      const cookie = (await fetch(link, { method: 'POST', redirect: 'manual' })).headers
        .get('set-cookie')!
        .split(';')[0]!;
      const base = app.webConsole.localUrl()!;

      const times: number[] = [];
      for (let i = 0; i < WARMUP + REQUESTS; i++) {
        const t0 = performance.now();
        const res = await fetch(`${base}/admin`, { headers: { cookie } });
        const html = await res.text();
        if (res.status !== 200 || !html.includes('runs running now'))
          throw new Error(`the Overview answered ${res.status}`);
        if (i >= WARMUP) times.push(performance.now() - t0);
      }

      // A step of an active run, then the time until the Runs page's stream carries the new step count.
      const runId = `run-${CONVERSATIONS - 1}`;
      const stream = await fetch(`${base}/admin/runs/events`, { headers: { cookie } });
      const reader = stream.body!.getReader();
      const decoder = new TextDecoder();
      let buffer = '';
      const nextEvent = async (): Promise<string> => {
        for (;;) {
          const end = buffer.indexOf('\n\n');
          if (end >= 0) {
            const event = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            if (event.startsWith('event: runs')) return event;
            continue;
          }
          const { value, done } = await reader.read();
          if (done) throw new Error('the stream ended');
          buffer += decoder.decode(value, { stream: true });
        }
      };
      await nextEvent();
      const latencies: number[] = [];
      for (let step = 0; step < STEPS; step++) {
        // Steps land at any moment of the poll period, as they do in a real run.
        await new Promise((r) => setTimeout(r, 37 + ((step * 53) % 200)));
        const t0 = performance.now();
        const steps = await app.store.runs.countStep(runId);
        for (;;) {
          const event = await nextEvent();
          if (event.includes(`run-${CONVERSATIONS - 1}`) && event.includes(`<td class="num">${steps}</td>`)) break;
        }
        latencies.push(performance.now() - t0);
      }
      await reader.cancel();
      return [
        {
          name: 'console_overview_ms',
          value: median(times),
          unit: 'ms',
          detail: `p50 of ${REQUESTS} GET /admin over HTTP with ${CONVERSATIONS} conversations, ${SCHEDULES} schedules, ${ACTIVE_RUNS} active runs (target < 50 ms)`,
        },
        {
          name: 'console_sse_update_ms',
          value: median(latencies),
          unit: 'ms',
          detail: `p50 of ${STEPS} steps, from the step's write to the Runs page's server-sent event (poll every 250 ms; target < 500 ms)`,
        },
      ];
    } finally {
      await app.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
