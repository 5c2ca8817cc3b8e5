import pg from 'pg';
import type { FakeStep } from '../tests/fakes/fake-openai.js';
import { waitFor } from '../tests/fakes/wait-for.js';
import { startTestPostgres } from '../tests/support/postgres-server.js';
import { answerAfter, answerMentions, createDatabase, LEASE_SECONDS, SLOTS, startCluster } from './errand-cluster.js';
import type { Benchmark, BenchFigure } from './benchmark.js';
import { postmasterPid, serverCpuMs } from './pg-server-cpu.js';
import { procCpuMs } from './proc-cpu.js';

/**
 * Issue 15's scale-out figures: mentions answered per second by 1, 2 and 3 Errand processes (the real
 * entry point, environment only) sharing one PostgreSQL database behind a round-robin Slack in HTTP mode,
 * the same for one process on SQLite, and how long a SIGKILLed process's run takes to resume elsewhere.
 * The model answers every request after a fixed 200 ms, and each process runs at most 8 runs at once,
 * so the ceiling is 40 mentions/s per process; what falls short of it is Errand's own overhead.
 *
 * The fake Slack enforces its per-channel posting limit (Slack's ~1 message/s), and every mention is in a
 * channel of its own, as a busy workspace's mentions mostly are: the platform's per-channel limit is
 * then never what holds the figure down, and a 429 would show in the detail line. Each configuration answers
 * MENTIONS_PER_PROCESS mentions per process, many waves of its slots.
 */

const MENTIONS_PER_PROCESS = Number(process.env.BENCH_SCALEOUT_MENTIONS ?? 100);
const MODEL_LATENCY_MS = 200;

interface Throughput {
  mentionsPerSecond: number;
  mentions: number;
  /** Mentions kept waiting for an answer at any moment: twice the slots, so a free slot always finds work queued. */
  outstanding: number;
  /** Web API calls the fake Slack refused with 429 (its per-channel limit). */
  rateLimited: number;
  /** CPU ms per mention of the Errand processes together, and of the PostgreSQL server (0 on SQLite), from /proc. */
  errandCpuMs: number;
  serverCpuMs: number;
}

/**
 * Mentions/s from the first mention to the last answer, over MENTIONS_PER_PROCESS × `count` mentions in
 * distinct channels. The driver keeps twice the processes' slots of mentions waiting (a new one as each
 * is answered): enough that every slot stays busy and some work is always queued, without a flood of
 * hundreds of simultaneous deliveries whose ingestion would be measured instead of the answering.
 */
async function throughput(count: number, databaseUrl: string | null, mainJs?: string): Promise<Throughput> {
  const cluster = await startCluster(count, databaseUrl, answerAfter(MODEL_LATENCY_MS), mainJs);
  const total = MENTIONS_PER_PROCESS * count;
  const outstanding = 2 * SLOTS * count;
  const postmaster = databaseUrl === null ? null : await postmasterPid(databaseUrl);
  const errandCpu = () => cluster.processes.reduce((sum, p) => sum + (procCpuMs(p.errand.child.pid!) ?? 0), 0);
  const serverCpu = () => (postmaster === null ? 0 : serverCpuMs(postmaster));
  try {
    const [errandBefore, serverBefore] = [errandCpu(), serverCpu()];
    const seconds = await answerMentions(cluster, 0, total, outstanding);
    return {
      mentionsPerSecond: total / seconds,
      mentions: total,
      outstanding,
      rateLimited: cluster.slack.calls.filter((c) => c.status === 429).length,
      errandCpuMs: (errandCpu() - errandBefore) / total,
      serverCpuMs: (serverCpu() - serverBefore) / total,
    };
  } finally {
    await cluster.close();
  }
}

/** Milliseconds from the SIGKILL of a process in the middle of a run to the run resuming on another (its restart note posted). */
async function takeover(databaseUrl: string): Promise<number> {
  let slowCalls = 0;
  const releases: (() => void)[] = [];
  const cluster = await startCluster(3, databaseUrl, (): FakeStep =>
    ++slowCalls === 1
      ? { text: 'never', gate: new Promise<void>((r) => releases.push(r)) }
      : { text: 'The slow answer.' },
  );
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { ts } = await cluster.slack.mention({
      user: 'U0ALICE01',
      channel: 'C0SLOW',
      text: 'the slow one',
      order: 'together',
    });
    const owner = await waitFor(
      async () => {
        const rows = (await client.query<{ owner: string | null }>(`select owner from runs where status = 'running'`))
          .rows;
        return rows.length === 1 && slowCalls === 1 ? rows[0]!.owner : null;
      },
      60_000,
      'the slow run',
    );
    const victim = cluster.processes.find((p) => p.id === owner)!;
    const killedAt = performance.now();
    await victim.errand.kill();
    await waitFor(
      () => cluster.slack.botTexts('C0SLOW', ts).some((t) => t.includes('I was restarted while working')),
      120_000,
      'the restart note',
    );
    const ms = performance.now() - killedAt;
    await waitFor(() => cluster.slack.botTexts('C0SLOW', ts).includes('The slow answer.'), 60_000, 'the answer');
    return ms;
  } finally {
    for (const release of releases) release();
    await client.end();
    await cluster.close();
  }
}

/** Which process counts run on PostgreSQL (`BENCH_SCALEOUT_COUNTS=1` for the one-process figure alone). */
const COUNTS = (process.env.BENCH_SCALEOUT_COUNTS ?? '1,2,3').split(',').map(Number);
/**
 * `BENCH_PG_BASELINE=<another checkout>/dist/src/main.js`: one process of that build on PostgreSQL too, right after
 * this build's `scaleout-pg-1` (as `scaleout-pg-1-baseline`), for an A/B under the load of the same run.
 */
const BASELINE = process.env.BENCH_PG_BASELINE;

export const benchmark: Benchmark = {
  name: 'scaleout',
  figures: ['scaleout-pg-1', 'scaleout-pg-2', 'scaleout-pg-3', 'scaleout-sqlite-1', 'scaleout-takeover'],
  async run(): Promise<BenchFigure[]> {
    const server = await startTestPostgres();
    try {
      const figures: BenchFigure[] = [];
      const ceiling = (1000 / MODEL_LATENCY_MS) * SLOTS;
      const detail = (count: number, t: Throughput) =>
        `${t.mentions} mentions in distinct channels, ${t.outstanding} waiting at any time, model ${MODEL_LATENCY_MS} ms, MAX_CONCURRENT_RUNS ${SLOTS} per process (ceiling ${ceiling * count}/s, ${Math.round((t.mentionsPerSecond / (ceiling * count)) * 100)}% of it); ${t.rateLimited} Slack 429s; CPU per mention: Errand ${t.errandCpuMs.toFixed(1)} ms${t.serverCpuMs > 0 ? ` + PostgreSQL ${t.serverCpuMs.toFixed(1)} ms` : ''}`;
      for (const count of COUNTS) {
        const url = await createDatabase(server, `errand_bench_scaleout_${count}_${process.pid}`);
        const t = await throughput(count, url);
        figures.push({
          name: `scaleout-pg-${count}`,
          value: t.mentionsPerSecond,
          unit: 'mentions/s',
          detail: `${count} process(es) on PostgreSQL; ${detail(count, t)}`,
        });
        if (count === 1 && BASELINE) {
          const baseUrl = await createDatabase(server, `errand_bench_scaleout_base_${process.pid}`);
          const b = await throughput(1, baseUrl, BASELINE);
          figures.push({
            name: 'scaleout-pg-1-baseline',
            value: b.mentionsPerSecond,
            unit: 'mentions/s',
            detail: `1 process of ${BASELINE} on PostgreSQL; ${detail(1, b)}`,
          });
        }
      }
      const t = await throughput(1, null);
      figures.push({
        name: 'scaleout-sqlite-1',
        value: t.mentionsPerSecond,
        unit: 'mentions/s',
        detail: `1 process on SQLite; ${detail(1, t)}`,
      });
      if (process.env.BENCH_SCALEOUT_TAKEOVER === '0') return figures;
      const url = await createDatabase(server, `errand_bench_scaleout_takeover_${process.pid}`);
      figures.push({
        name: 'scaleout-takeover',
        value: await takeover(url),
        unit: 'ms',
        detail: `SIGKILL of the run's process to its restart note on another of 3, RUN_LEASE_SECONDS ${LEASE_SECONDS}`,
      });
      return figures;
    } finally {
      await server.stop();
    }
  },
};
