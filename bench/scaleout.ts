import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startErrandProcess, type ErrandProcess } from '../tests/e2e/errand-process.js';
import { entryArgs } from './entry-process.js';
import { lastUserText, startFakeOpenAI, type FakeOpenAI, type FakeStep, type RecordedRequest } from '../tests/fakes/fake-openai.js';
import { FakeSlack } from '../tests/fakes/fake-slack.js';
import { waitFor } from '../tests/fakes/wait-for.js';
import { freePort, listening } from '../tests/support/free-port.js';
import { startTestPostgres, type TestPostgresServer } from '../tests/support/postgres-server.js';
import type { Benchmark, BenchFigure } from './benchmark.js';

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
const SLOTS = 8;
const LEASE_SECONDS = 5;



async function createDatabase(server: TestPostgresServer, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: server.adminUrl });
  await client.connect();
  try {
    await client.query(`create database ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(server.adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

interface Cluster {
  readonly slack: FakeSlack;
  readonly model: FakeOpenAI;
  readonly processes: { id: string; errand: ErrandProcess }[];
  close(): Promise<void>;
}

/** `count` processes on one store (`DATABASE_URL`, or SQLite in a temporary directory when null), ready for events. */
async function startCluster(count: number, databaseUrl: string | null, respond: (r: RecordedRequest) => FakeStep): Promise<Cluster> {
  const dir = mkdtempSync(join(tmpdir(), 'errand-bench-scaleout-'));
  const slack = await FakeSlack.start();
  const model = await startFakeOpenAI();
  model.respondWith(respond);
  const ports = await Promise.all(Array.from({ length: count }, () => freePort()));
  const entry = entryArgs();
  const processes = ports.map((port, i) => {
    const id = `bench-${i + 1}`;
    const errand = startErrandProcess({
      SLACK_BOT_TOKEN: 'xoxb-bench',
      SLACK_SIGNING_SECRET: slack.signingSecret,
      SLACK_MODE: 'http',
      SLACK_PORT: String(port),
      SLACK_API_URL: slack.apiUrl,
      OPENAI_BASE_URL: model.baseUrl,
      OPENAI_API_KEY: 'bench-key',
      DATABASE_PATH: join(dir, 'errand.db'),
      ...(databaseUrl === null ? {} : { DATABASE_URL: databaseUrl, ERRAND_PROCESS_ID: id }),
      MAX_CONCURRENT_RUNS: String(SLOTS),
      RUN_LEASE_SECONDS: String(LEASE_SECONDS),
    }, { entry });
    return { id, errand };
  });
  for (const [i, port] of ports.entries()) {
    const { errand, id } = processes[i]!;
    await waitFor(async () => {
      if (errand.child.exitCode !== null) throw new Error(`${id} exited at start:\n${errand.output()}`);
      return listening(port);
    }, 120_000, `${id} to listen`);
  }
  slack.useHttpReceivers(ports.map((p) => `http://127.0.0.1:${p}/slack/events`));
  return {
    slack,
    model,
    processes,
    async close() {
      await Promise.all(processes.map((p) => p.errand.kill()));
      await slack.close();
      await model.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const afterModelLatency = (text: string): FakeStep => ({ text, gate: new Promise<void>((resolve) => setTimeout(resolve, MODEL_LATENCY_MS)) });

interface Throughput {
  mentionsPerSecond: number;
  mentions: number;
  /** Mentions kept waiting for an answer at any moment: twice the slots, so a free slot always finds work queued. */
  outstanding: number;
  /** Web API calls the fake Slack refused with 429 (its per-channel limit). */
  rateLimited: number;
}

/**
 * Mentions/s from the first mention to the last answer, over MENTIONS_PER_PROCESS × `count` mentions in
 * distinct channels. The driver keeps twice the processes' slots of mentions waiting (a new one as each
 * is answered): enough that every slot stays busy and some work is always queued, without a flood of
 * hundreds of simultaneous deliveries whose ingestion would be measured instead of the answering.
 */
async function throughput(count: number, databaseUrl: string | null): Promise<Throughput> {
  const cluster = await startCluster(count, databaseUrl, (r) => afterModelLatency(`Answer ${/question (\d+)/.exec(lastUserText(r))?.[1] ?? '?'}.`));
  const total = MENTIONS_PER_PROCESS * count;
  const outstanding = 2 * SLOTS * count;
  const channel = (n: number) => `C0BENCH${String(n).padStart(4, '0')}`;
  /** Threads waiting for their answer, by channel: the thread's ts (once the mention was stored) and what settles it. */
  const waiting = new Map<string, { n: number; ts: string | null; answered: () => void }>();
  const check = (ch: string) => {
    const w = waiting.get(ch);
    if (w?.ts && cluster.slack.botTexts(ch, w.ts).includes(`Answer ${w.n}.`)) {
      waiting.delete(ch);
      w.answered();
    }
  };
  // Answers arrive as stream stops (or posts, when streaming falls back): look at that channel only, instead of polling all.
  cluster.slack.onCall = (call) => {
    if (call.method.startsWith('chat.') && typeof call.args.channel === 'string') check(call.args.channel);
  };
  let next = 0;
  const ask = async (): Promise<void> => {
    while (next < total) {
      const n = next++;
      const ch = channel(n);
      const answered = new Promise<void>((resolve) => waiting.set(ch, { n, ts: null, answered: resolve }));
      const { ts } = await cluster.slack.mention({ user: 'U0ALICE01', channel: ch, text: `question ${n}`, order: 'together' });
      const w = waiting.get(ch);
      if (w) w.ts = ts;
      check(ch);
      await answered;
    }
  };
  let timer: NodeJS.Timeout | undefined;
  try {
    const started = performance.now();
    await Promise.race([
      Promise.all(Array.from({ length: outstanding }, ask)),
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`scaleout: ${waiting.size} mentions unanswered after 300 s`)), 300_000))),
    ]);
    const seconds = (performance.now() - started) / 1000;
    return { mentionsPerSecond: total / seconds, mentions: total, outstanding, rateLimited: cluster.slack.calls.filter((c) => c.status === 429).length };
  } finally {
    clearTimeout(timer);
    cluster.slack.onCall = null;
    await cluster.close();
  }
}

/** Milliseconds from the SIGKILL of a process in the middle of a run to the run resuming on another (its restart note posted). */
async function takeover(databaseUrl: string): Promise<number> {
  let slowCalls = 0;
  const releases: (() => void)[] = [];
  const cluster = await startCluster(3, databaseUrl, (): FakeStep => (++slowCalls === 1 ? { text: 'never', gate: new Promise<void>((r) => releases.push(r)) } : { text: 'The slow answer.' }));
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { ts } = await cluster.slack.mention({ user: 'U0ALICE01', channel: 'C0SLOW', text: 'the slow one', order: 'together' });
    const owner = await waitFor(async () => {
      const rows = (await client.query<{ owner: string | null }>(`select owner from runs where status = 'running'`)).rows;
      return rows.length === 1 && slowCalls === 1 ? rows[0]!.owner : null;
    }, 60_000, 'the slow run');
    const victim = cluster.processes.find((p) => p.id === owner)!;
    const killedAt = performance.now();
    await victim.errand.kill();
    await waitFor(() => cluster.slack.botTexts('C0SLOW', ts).some((t) => t.includes('I was restarted while working')), 120_000, 'the restart note');
    const ms = performance.now() - killedAt;
    await waitFor(() => cluster.slack.botTexts('C0SLOW', ts).includes('The slow answer.'), 60_000, 'the answer');
    return ms;
  } finally {
    for (const release of releases) release();
    await client.end();
    await cluster.close();
  }
}

export const benchmark: Benchmark = {
  name: 'scaleout',
  figures: ['scaleout-pg-1', 'scaleout-pg-2', 'scaleout-pg-3', 'scaleout-sqlite-1', 'scaleout-takeover'],
  async run(): Promise<BenchFigure[]> {
    const server = await startTestPostgres();
    try {
      const figures: BenchFigure[] = [];
      const ceiling = (1000 / MODEL_LATENCY_MS) * SLOTS;
      const detail = (count: number, t: Throughput) =>
        `${t.mentions} mentions in distinct channels, ${t.outstanding} waiting at any time, model ${MODEL_LATENCY_MS} ms, MAX_CONCURRENT_RUNS ${SLOTS} per process (ceiling ${ceiling * count}/s, ${Math.round((t.mentionsPerSecond / (ceiling * count)) * 100)}% of it); ${t.rateLimited} Slack 429s`;
      for (const count of [1, 2, 3]) {
        const url = await createDatabase(server, `errand_bench_scaleout_${count}_${process.pid}`);
        const t = await throughput(count, url);
        figures.push({ name: `scaleout-pg-${count}`, value: t.mentionsPerSecond, unit: 'mentions/s', detail: `${count} process(es) on PostgreSQL; ${detail(count, t)}` });
      }
      const t = await throughput(1, null);
      figures.push({ name: 'scaleout-sqlite-1', value: t.mentionsPerSecond, unit: 'mentions/s', detail: `1 process on SQLite; ${detail(1, t)}` });
      const url = await createDatabase(server, `errand_bench_scaleout_takeover_${process.pid}`);
      figures.push({ name: 'scaleout-takeover', value: await takeover(url), unit: 'ms', detail: `SIGKILL of the run's process to its restart note on another of 3, RUN_LEASE_SECONDS ${LEASE_SECONDS}` });
      return figures;
    } finally {
      await server.stop();
    }
  },
};
