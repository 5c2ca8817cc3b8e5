import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startErrandProcess, type ErrandProcess } from '../tests/e2e/errand-process.js';
import { startFakeOpenAI, type FakeOpenAI, type FakeStep, type RecordedRequest } from '../tests/fakes/fake-openai.js';
import { FakeSlack } from '../tests/fakes/fake-slack.js';
import { waitFor } from '../tests/fakes/wait-for.js';
import { freePort } from '../tests/support/free-port.js';
import { startTestPostgres, type TestPostgresServer } from '../tests/support/postgres-server.js';
import type { Benchmark, BenchFigure } from './benchmark.js';

/**
 * Issue 15's scale-out figures: mentions answered per second by 1, 2 and 3 Errand processes (the real
 * entry point, environment only) sharing one PostgreSQL database behind a round-robin Slack in HTTP mode,
 * the same for one process on SQLite, and how long a SIGKILLed process's run takes to resume elsewhere.
 * The model answers every request after a fixed 200 ms, and each process runs at most 8 runs at once,
 * so the ceiling is 40 mentions/s per process; what falls short of it is Errand's own overhead.
 */

const MENTIONS = Number(process.env.BENCH_SCALEOUT_MENTIONS ?? 160);
const MODEL_LATENCY_MS = 200;
const LEASE_SECONDS = 5;

function lastUserText(request: RecordedRequest): string {
  const user = [...request.messages].reverse().find((m) => m.role === 'user');
  return typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content ?? '');
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

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
  const slack = await FakeSlack.start({ rateLimit: null });
  const model = await startFakeOpenAI();
  model.respondWith(respond);
  const ports = await Promise.all(Array.from({ length: count }, () => freePort()));
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
      MAX_CONCURRENT_RUNS: '8',
      RUN_LEASE_SECONDS: String(LEASE_SECONDS),
    });
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

/** Mentions/s from the first delivery to the last answer, over MENTIONS mentions in distinct channels. */
async function throughput(count: number, databaseUrl: string | null): Promise<number> {
  const cluster = await startCluster(count, databaseUrl, (r) => afterModelLatency(`Answer ${/question (\d+)/.exec(lastUserText(r))?.[1] ?? '?'}.`));
  try {
    const started = performance.now();
    const mentions = await Promise.all(Array.from({ length: MENTIONS }, (_, n) => cluster.slack.mention({ user: 'U0ALICE01', channel: `C0BENCH${n}`, text: `question ${n}`, order: 'together' })));
    await waitFor(() => mentions.every(({ ts }, n) => cluster.slack.botTexts(`C0BENCH${n}`, ts).includes(`Answer ${n}.`)), 300_000, 'every answer');
    return MENTIONS / ((performance.now() - started) / 1000);
  } finally {
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
      const detail = `${MENTIONS} mentions, model ${MODEL_LATENCY_MS} ms, MAX_CONCURRENT_RUNS 8 per process (ceiling ${1000 / MODEL_LATENCY_MS * 8}/s per process)`;
      for (const count of [1, 2, 3]) {
        const url = await createDatabase(server, `errand_bench_scaleout_${count}_${process.pid}`);
        figures.push({ name: `scaleout-pg-${count}`, value: await throughput(count, url), unit: 'mentions/s', detail: `${count} process(es) on PostgreSQL; ${detail}` });
      }
      figures.push({ name: 'scaleout-sqlite-1', value: await throughput(1, null), unit: 'mentions/s', detail: `1 process on SQLite; ${detail}` });
      const url = await createDatabase(server, `errand_bench_scaleout_takeover_${process.pid}`);
      figures.push({ name: 'scaleout-takeover', value: await takeover(url), unit: 'ms', detail: `SIGKILL of the run's process to its restart note on another of 3, RUN_LEASE_SECONDS ${LEASE_SECONDS}` });
      return figures;
    } finally {
      await server.stop();
    }
  },
};
