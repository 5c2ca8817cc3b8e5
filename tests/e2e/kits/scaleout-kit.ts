import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll } from 'vitest';
import type { FakeOpenAI } from '../../fakes/fake-openai.js';
import type { FakeSlack } from '../../fakes/fake-slack.js';
import { waitFor } from '../../fakes/wait-for.js';
import { freePort, listening } from '../../support/free-port.js';
import type { TestDatabase } from '../../support/test-database.js';
import { startErrandProcess, type ErrandProcess } from '../errand-process.js';

/** What the scale-out files (several real Errand processes on one PostgreSQL database) share. */

/** One of the Errand processes a scale-out file started. */
export interface ClusterProcess {
  readonly id: string;
  /** Where its Slack HTTP receiver takes events (empty for a process without one). */
  readonly url: string;
  readonly errand: ErrandProcess;
}

/** A query on the file's database (see `databaseQuery`). */
export type DatabaseQuery = <T extends pg.QueryResultRow>(text: string, values?: unknown[]) => Promise<T[]>;

/**
 * Queries on the file's database over one pooled connection of the test's own (the processes hold theirs),
 * closed after the file. One connection, not one per query: the waits below poll every few milliseconds, and
 * a connection per poll (a PostgreSQL backend and a SCRAM login each) took CPU from the processes under test.
 */
export function databaseQuery(db: TestDatabase): DatabaseQuery {
  let pool: pg.Pool | null = null;
  afterAll(async () => {
    await pool?.end();
    pool = null;
  });
  return async <T extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<T[]> => {
    if (!pool) {
      pool = new pg.Pool({ connectionString: db.url, max: 1 });
      // The database is dropped with its connections after the file: an idle connection's error is expected then.
      pool.on('error', () => undefined);
    }
    return (await pool.query<T>(text, values)).rows;
  };
}

/**
 * Waits until no run is `running`, no task is open and nothing waits in the outbox any more; on timeout says
 * which are, and what the processes printed. A run taken over from a killed process is recovered into a task
 * queued again: between the two no run is running but the work is not done, so open tasks count as work left
 * too. And a run that ended in a killed process may have its answer still to post (the survivor posts it).
 */
export async function noRunLeftWorking(query: DatabaseQuery, processes: readonly ClusterProcess[]): Promise<void> {
  const running = () =>
    query<{ id: string; owner: string | null; lease_until: string | null; steps: number; updated_at: string }>(
      `select id, owner, lease_until, steps, updated_at from runs where status = 'running'`,
    );
  const open = () =>
    query<{ id: number; status: string }>(`select id, status from tasks where status in ('pending', 'in_progress')`);
  const unposted = () =>
    query<{ id: number; conversation_id: string }>(`select id, conversation_id from outbox where status = 'pending'`);
  try {
    await waitFor(
      async () => (await running()).length === 0 && (await open()).length === 0 && (await unposted()).length === 0,
      30_000,
      'no run left working',
    );
  } catch {
    throw new Error(
      `runs still running: ${JSON.stringify(await running())}, tasks open: ${JSON.stringify(await open())}, outbox rows pending: ${JSON.stringify(await unposted())} at ${Date.now()}\n${outputsOf(processes)}`,
    );
  }
}

/** Everything the processes printed, one block each, for a failure message. */
export function outputsOf(processes: readonly ClusterProcess[]): string {
  return processes.map((p) => `${p.id}:\n${p.errand.output()}`).join('\n');
}

/** With SCALEOUT_LOG_DIR set, everything each process printed is written there (`<suite>-<process id>.log`). */
export function keepLogs(suite: string, processes: readonly ClusterProcess[]): void {
  const dir = process.env.SCALEOUT_LOG_DIR;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  for (const p of processes) writeFileSync(join(dir, `${suite}-${p.id}.log`), p.errand.output());
}

/** What starts the processes of one cluster (see startSlackCluster). */
export interface SlackClusterOptions {
  readonly ids: readonly string[];
  readonly slack: FakeSlack;
  readonly model: FakeOpenAI;
  readonly db: TestDatabase;
  /** A folder of the file's own (the unused SQLite paths point there). */
  readonly dir: string;
  readonly env?: NodeJS.ProcessEnv;
}

/** One process of the cluster, its receiver on `port`. */
function spawnSlackProcess(options: SlackClusterOptions, id: string, port: number): ClusterProcess {
  const { slack, model, db, dir } = options;
  const errand = startErrandProcess({
    SLACK_BOT_TOKEN: 'xoxb-scaleout-test',
    SLACK_SIGNING_SECRET: slack.signingSecret,
    SLACK_MODE: 'http',
    SLACK_PORT: String(port),
    SLACK_API_URL: slack.apiUrl,
    OPENAI_BASE_URL: model.baseUrl,
    OPENAI_API_KEY: 'test-key',
    DATABASE_URL: db.url,
    DATABASE_PATH: join(dir, `unused-${id}.db`),
    ERRAND_PROCESS_ID: id,
    ...options.env,
  });
  return { id, url: `http://127.0.0.1:${port}/slack/events`, errand };
}

/** Waits until the process's receiver listens; throws with what it printed when it exits first. */
async function untilListening({ id, errand, url }: ClusterProcess): Promise<void> {
  const port = Number(new URL(url).port);
  await waitFor(
    async () => {
      if (errand.child.exitCode !== null) throw new Error(`${id} exited at start:\n${errand.output()}`);
      return listening(port);
    },
    90_000,
    `${id} to listen on ${port}`,
  );
}

/**
 * Starts one Errand process per id (the `npm start` entry, configured by the environment only) on the file's
 * PostgreSQL database behind the fake Slack in HTTP mode, waits until each one's receiver listens, and
 * spreads the fake's events round-robin over them the way a load balancer would. `env` is added to each
 * process's environment (lease, log level, ERRAND_CONFIG…).
 */
export async function startSlackCluster(options: SlackClusterOptions): Promise<ClusterProcess[]> {
  const { slack } = options;
  const ports = await Promise.all(options.ids.map(() => freePort()));
  const processes = options.ids.map((id, i) => spawnSlackProcess(options, id, ports[i]!));
  try {
    for (const p of processes) await untilListening(p);
  } catch (err) {
    await Promise.all(processes.map((p) => p.errand.kill()));
    throw err;
  }
  slack.useHttpReceivers(processes.map((p) => p.url));
  return processes;
}

/**
 * Starts a process of the cluster again after it died (same id, same receiver address, so the fake's
 * round-robin reaches it again), and waits until it listens.
 */
export async function restartSlackProcess(options: SlackClusterOptions, dead: ClusterProcess): Promise<ClusterProcess> {
  const again = spawnSlackProcess(options, dead.id, Number(new URL(dead.url).port));
  await untilListening(again);
  return again;
}
