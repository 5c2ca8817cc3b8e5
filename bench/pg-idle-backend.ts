import { readFileSync } from 'node:fs';
import pg from 'pg';
import { closePostgres, openPostgres } from '../src/db/pg-client.js';
import { ANSWER_WRITE_SQL } from '../src/store/postgres/pg-answer-write.js';
import { startTestPostgres } from '../tests/support/postgres-server.js';
import type { Benchmark, BenchFigure } from './benchmark.js';
import { createDatabase } from './errand-cluster.js';
import { median } from './overhead-figures.js';
import { procStatFields, ticksToMs } from './proc-cpu.js';

/*
 * What one PostgreSQL backend spends on the same statements when they come back to back and when it sleeps between
 * them (issue 40, twelfth round). In `pg-overhead` each of a process's pooled connections waits 8 ms between two
 * statements at the median (20 ms at the 75th percentile) while the rest of the machine runs Errand and the fakes;
 * this isolates what that sleep costs: one connection, one backend, the same three statements a round (a run's row
 * inserted, the answer's write as Errand sends it, the run's end), with no pause, or with 1, 5 or 20 ms of sleep
 * after each round. The gaps take turns block by block, so the machine's load falls on all alike.
 */

const ROUNDS = Number(process.env.BENCH_PG_IDLE_ROUNDS ?? 6);
const GAPS_MS = [0, 1, 5, 20] as const;
/** Statement rounds a block: as many as fit in ~2 s of sleep, at least 100 (enough ticks of /proc's clock). */
const perBlock = (gap: number) => (gap === 0 ? 400 : Math.max(100, Math.min(400, Math.round(2_000 / gap))));

/** The backend's CPU ms from the scheduler (`se.sum_exec_runtime`, ns): exact, unlike /proc's sampled ticks. */
function schedMs(pid: number): number {
  return Number(readFileSync(`/proc/${String(pid)}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
}

/** The backend's user and system CPU ms from /proc's ticks (sampled; what the other benchmarks read). */
function ticksMs(pid: number): { user: number; system: number } {
  const f = procStatFields(pid);
  if (!f) throw new Error(`PostgreSQL's backend ${String(pid)} is gone`);
  return { user: ticksToMs(Number(f[11])), system: ticksToMs(Number(f[12])) };
}

export const benchmark: Benchmark = {
  name: 'pg-idle-backend',
  figures: ['pg_idle_backend_cpu_ratio'],
  async run(): Promise<BenchFigure[]> {
    const server = await startTestPostgres();
    try {
      const url = await createDatabase(server, `errand_bench_pg_idle_${process.pid}`);
      await closePostgres(await openPostgres(url)); // the migrations
      const db = new pg.Client({ connectionString: url });
      await db.connect();
      try {
        const { rows } = await db.query<{ pid: number }>('select pg_backend_pid() as pid');
        const backend = rows[0]!.pid;
        await db.query(
          `insert into conversations (id, platform, workspace, channel, thread, created_at, updated_at) values ('c', 'slack', 'W', 'C', 't', 0, 0)`,
        );
        let n = 0;
        const round = async () => {
          const run = `run-${String(++n)}`;
          await db.query({
            name: 'run',
            text: `insert into runs (id, conversation_id, status, started_at, updated_at, owner, lease_generation) values ($1, 'c', 'running', 0, 0, 'p', 1)`,
            values: [run],
          });
          await db.query({
            name: 'answer',
            text: ANSWER_WRITE_SQL,
            values: [
              run,
              'p',
              1,
              10,
              n,
              '2026-12-06',
              'U1',
              5,
              5,
              'm',
              0,
              0.001,
              'c',
              'hello',
              null,
              null,
              'answer',
              ['{"text":"hello"}'],
            ],
          });
          await db.query({ name: 'end', text: `update runs set status = 'succeeded' where id = $1`, values: [run] });
        };
        const sched = new Map<number, number[]>(GAPS_MS.map((g) => [g, []]));
        const user = new Map<number, number[]>(GAPS_MS.map((g) => [g, []]));
        const system = new Map<number, number[]>(GAPS_MS.map((g) => [g, []]));
        for (let i = 0; i < 200; i++) await round(); // plans made, caches filled
        for (let r = 0; r < ROUNDS; r++) {
          const order = r % 2 === 0 ? GAPS_MS : [...GAPS_MS].reverse();
          for (const gap of order) {
            const count = perBlock(gap);
            const [s0, t0] = [schedMs(backend), ticksMs(backend)];
            for (let i = 0; i < count; i++) {
              await round();
              if (gap > 0) await new Promise((resolve) => setTimeout(resolve, gap));
            }
            sched.get(gap)!.push(((schedMs(backend) - s0) * 1000) / count);
            const t1 = ticksMs(backend);
            user.get(gap)!.push(((t1.user - t0.user) * 1000) / count);
            system.get(gap)!.push(((t1.system - t0.system) * 1000) / count);
          }
        }
        const at = (m: Map<number, number[]>, gap: number) => median(m.get(gap)!);
        const hot = at(sched, 0);
        const list = (m: Map<number, number[]>) =>
          GAPS_MS.map((g) => `${String(g)} ms ${at(m, g).toFixed(0)}`).join(', ');
        return [
          {
            name: 'pg_idle_backend_cpu_ratio',
            value: at(sched, 5) / hot,
            unit: 'x',
            detail:
              `the backend's CPU for the same three statements (a run's row, Errand's answer write, the run's end) after 5 ms of sleep against back to back; ` +
              `µs a round by the sleep after it (scheduler's clock): ${list(sched)}; by /proc's ticks, user ${list(user)}, system ${list(system)}; ` +
              `median of ${String(ROUNDS)} blocks a gap, taken in turn`,
          },
        ];
      } finally {
        await db.end();
      }
    } finally {
      await server.stop();
    }
  },
};
