import { chmodSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isProcessAlive } from '../../src/db/process-alive.js';
import { removeOrphanedClusters } from './postgres-server.js';

const PREFIX = 'errand-test-run-';

/** The directories of earlier runs that were killed before their teardown: their servers stopped, the directories removed. */
function removeStaleRuns(root: string): void {
  for (const name of readdirSync(root)) {
    const owner = new RegExp(`^${PREFIX}(\\d+)-`).exec(name)?.[1];
    if (!owner || isProcessAlive(Number(owner))) continue;
    const dir = join(root, name);
    removeOrphanedClusters(dir);
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Vitest globalSetup: the run's temporary files go under one directory of its own, removed when the run ends. The
 * tests make fresh directories for configuration files, databases, workspaces and servers (hundreds a run), and
 * many leave theirs behind when they end; without this every `npm test` left them in the machine's /tmp for good.
 * The workers (forks) and the processes the tests start inherit TMPDIR, which is where `os.tmpdir()` looks.
 */
export default function setup(): () => void {
  const root = tmpdir();
  removeStaleRuns(root);
  const dir = mkdtempSync(join(root, `${PREFIX}${process.pid}-`));
  // As root the test server runs as `postgres` (postgres-server.ts), which must pass through this directory.
  chmodSync(dir, 0o755);
  const before = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  return () => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    rmSync(dir, { recursive: true, force: true });
  };
}
