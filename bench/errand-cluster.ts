import type { ChildProcess } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startErrandProcess, type ErrandProcess } from '../tests/e2e/errand-process.js';
import { entryArgs } from './entry-process.js';
import {
  lastUserText,
  startFakeOpenAI,
  type FakeOpenAI,
  type FakeStep,
  type RecordedRequest,
} from '../tests/fakes/fake-openai.js';
import { FakeSlack } from '../tests/fakes/fake-slack.js';
import { waitFor } from '../tests/fakes/wait-for.js';
import { freePort, listening } from '../tests/support/free-port.js';
import type { TestPostgresServer } from '../tests/support/postgres-server.js';

/** Each process runs at most this many runs at once (the scale-out benchmarks' `MAX_CONCURRENT_RUNS`). */
export const SLOTS = 8;
export const LEASE_SECONDS = 5;

/** A fresh database on the benchmark's server; its URL. */
export async function createDatabase(server: TestPostgresServer, name: string): Promise<string> {
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

/** Errand processes on one store behind one fake Slack (HTTP mode, round-robin) and one fake model. */
export interface Cluster {
  readonly slack: FakeSlack;
  readonly model: FakeOpenAI;
  readonly processes: { id: string; errand: ErrandProcess }[];
  close(): Promise<void>;
}

/**
 * `count` processes on one store (`DATABASE_URL`, or SQLite in a temporary directory when null), ready for events.
 * `mainJs` starts another build of Errand instead of this checkout's (an A/B comparison: its dist/src/main.js);
 * `env` adds to every process's environment.
 */
export async function startCluster(
  count: number,
  databaseUrl: string | null,
  respond: (r: RecordedRequest) => FakeStep,
  mainJs?: string,
  env: Record<string, string> = {},
): Promise<Cluster> {
  const dir = mkdtempSync(join(tmpdir(), 'errand-bench-scaleout-'));
  const slack = await FakeSlack.start();
  const model = await startFakeOpenAI();
  model.respondWith(respond);
  const ports = await Promise.all(Array.from({ length: count }, () => freePort()));
  const entry = mainJs === undefined ? entryArgs() : [...entryArgs().filter((a) => a !== 'dist/src/main.js'), mainJs];
  const processes = ports.map((port, i) => {
    const id = `bench-${i + 1}`;
    const errand = startErrandProcess(
      {
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
        ...env,
      },
      { entry },
    );
    // BENCH_ERRAND_LOG_DIR keeps each process's output in a file of its own, written as it comes.
    const logDir = process.env.BENCH_ERRAND_LOG_DIR;
    if (logDir) {
      const file = join(logDir, `${id}-${errand.child.pid}.log`);
      for (const stream of [errand.child.stdout, errand.child.stderr])
        stream?.on('data', (d: Buffer) => appendFileSync(file, d));
    }
    // A process that dies mid-run shows up as a reset connection in the benchmark: say why it died.
    errand.child.once('exit', (code, signal) => {
      if (code !== 0 && signal !== 'SIGKILL' && signal !== 'SIGTERM')
        process.stderr.write(`# ${id} exited (${code ?? signal}):\n${errand.output().slice(-4_000)}\n`);
    });
    return { id, errand };
  });
  for (const [i, port] of ports.entries()) {
    const { errand, id } = processes[i]!;
    await waitFor(
      async () => {
        if (errand.child.exitCode !== null) throw new Error(`${id} exited at start:\n${errand.output()}`);
        return listening(port);
      },
      120_000,
      `${id} to listen`,
    );
  }
  slack.useHttpReceivers(ports.map((p) => `http://127.0.0.1:${p}/slack/events`));
  return {
    slack,
    model,
    processes,
    async close() {
      // A process started with `--cpu-prof` (BENCH_START_FLAGS) writes its profile only when it exits by itself.
      if ((process.env.BENCH_START_FLAGS ?? '').includes('--cpu-prof'))
        await Promise.all(processes.map((p) => stopGently(p.errand.child)));
      await Promise.all(processes.map((p) => p.errand.kill()));
      await slack.close();
      await model.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Mentions `first` … `first + count - 1`, each in a channel of its own, answered by the cluster; resolves with
 * the seconds from the first mention to the last answer. `outstanding` mentions wait for an answer at any time
 * (a new one as each is answered): a closed loop, so every slot stays busy without a flood of deliveries whose
 * ingestion would be measured instead of the answering. The model must answer "question N" with "Answer N.".
 */
export async function answerMentions(
  cluster: Cluster,
  first: number,
  count: number,
  outstanding: number,
  timeoutMs = 300_000,
): Promise<number> {
  const channel = (n: number) => `C0BENCH${String(n).padStart(5, '0')}`;
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
  let next = first;
  const end = first + count;
  const ask = async (): Promise<void> => {
    while (next < end) {
      const n = next++;
      const ch = channel(n);
      const answered = new Promise<void>((resolve) => waiting.set(ch, { n, ts: null, answered: resolve }));
      const { ts } = await cluster.slack.mention({
        user: 'U0ALICE01',
        channel: ch,
        text: `question ${n}`,
        order: 'together',
      });
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
      Promise.all(Array.from({ length: Math.min(outstanding, count) }, ask)),
      new Promise(
        (_, reject) =>
          (timer = setTimeout(
            () => reject(new Error(`${waiting.size} mentions unanswered after ${timeoutMs / 1000} s`)),
            timeoutMs,
          )),
      ),
    ]);
    return (performance.now() - started) / 1000;
  } finally {
    clearTimeout(timer);
    cluster.slack.onCall = null;
  }
}

/** The model's answer to "question N" after `latencyMs`: "Answer N.", which answerMentions waits for. */
export function answerAfter(latencyMs: number): (r: RecordedRequest) => FakeStep {
  return (r) => ({
    text: `Answer ${/question (\d+)/.exec(lastUserText(r))?.[1] ?? '?'}.`,
    gate: new Promise<void>((resolve) => setTimeout(resolve, latencyMs)),
  });
}

/** SIGTERM, and up to 15 s for the process to shut down (and write what it writes at exit). */
async function stopGently(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 15_000))]);
}
