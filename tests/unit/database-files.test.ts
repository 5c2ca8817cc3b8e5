import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeDatabase, openDatabase } from '../../src/db/client.js';
import { isProcessAlive, processState } from '../../src/db/process-alive.js';
import { acquireProcessLock, LOCK_STALE_MS } from '../../src/db/process-lock.js';
import { waitFor } from '../fakes/wait-for.js';
import { DatabaseError } from '../../src/errors.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'errand-files-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const modeOf = (p: string) => statSync(p).mode & 0o777;

describe('database files', () => {
  it('are created owner-only: data directory 0700, database, WAL and shared-memory files 0600', () => {
    const path = join(dir, 'data', 'nested', 'errand.db');
    const db = openDatabase(path);
    try {
      db.$client.exec('create table if not exists t (x)');
      expect(modeOf(join(dir, 'data', 'nested'))).toBe(0o700);
      expect(modeOf(path)).toBe(0o600);
      for (const extra of ['-wal', '-shm']) if (existsSync(path + extra)) expect(modeOf(path + extra)).toBe(0o600);
    } finally {
      closeDatabase(db);
    }
  });

  it('a DATABASE_PATH that cannot be created fails with a message naming the variable and the fix', () => {
    const notADir = join(dir, 'plain-file');
    writeFileSync(notADir, 'x');
    const err = (() => {
      try {
        openDatabase(join(notADir, 'errand.db'));
        return null;
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(DatabaseError);
    expect((err as Error).message).toMatch(
      /^DATABASE_PATH=.*plain-file\/errand\.db: .*plain-file is a file, not a directory\. Set DATABASE_PATH to a file in a directory Errand may write/,
    );
  });

  it('a file that is not a database names DATABASE_PATH instead of failing deep inside SQLite', () => {
    const path = join(dir, 'notes.db');
    writeFileSync(path, 'this is not an SQLite database, just text that is long enough to have a header '.repeat(10));
    expect(() => openDatabase(path)).toThrow(
      /DATABASE_PATH=.*notes\.db: SQLite could not use the database \(file is not a database\)/,
    );
  });
});

describe('the process lock beside the database', () => {
  const db = () => join(dir, 'errand.db');

  it('refuses a second holder, naming its pid, host and start time', () => {
    const first = acquireProcessLock(db(), {
      pid: 4242,
      host: 'box-a',
      now: () => Date.parse('2026-01-02T03:04:05Z'),
      isAlive: () => true,
    });
    expect(modeOf(first.path)).toBe(0o600);
    expect(() => acquireProcessLock(db(), { pid: 5151, host: 'box-a', isAlive: () => true })).toThrow(
      /Another Errand process is using DATABASE_PATH=.*errand\.db: pid 4242 on host box-a, running since 2026-01-02T03:04:05\.000Z/,
    );
  });

  it('takes over the lock of a dead process on the same host (a SIGKILLed Errand does not block the restart)', () => {
    acquireProcessLock(db(), { pid: 4242, host: 'box-a' });
    const second = acquireProcessLock(db(), { pid: 5151, host: 'box-a', isAlive: (pid) => pid !== 4242 });
    second.release();
    expect(existsSync(second.path)).toBe(false);
  });

  it('respects a fresh lock from another host but takes over one nobody refreshed for the stale period', () => {
    const first = acquireProcessLock(db(), { pid: 1, host: 'box-b' });
    expect(() => acquireProcessLock(db(), { pid: 2, host: 'box-a', isAlive: () => false })).toThrow(
      /pid 1 on host box-b/,
    );
    const old = new Date(Date.now() - LOCK_STALE_MS - 5_000);
    utimesSync(first.path, old, old);
    expect(() => acquireProcessLock(db(), { pid: 2, host: 'box-a' })).not.toThrow();
  });

  it('takes over the lock of a zombie (exited or killed, not yet reaped by its parent): a zombie is dead', async () => {
    const zombie = await startZombie();
    try {
      // What a plain liveness check sees: the pid still answers signal 0.
      expect(() => process.kill(zombie.pid, 0)).not.toThrow();
      acquireProcessLock(db(), { pid: zombie.pid, host: hostname() });
      const mine = acquireProcessLock(db());
      expect(isProcessAlive(zombie.pid)).toBe(false);
      mine.release();
      expect(existsSync(mine.path)).toBe(false);
    } finally {
      await zombie.reap();
    }
  });

  it('reads the state after the command name, whatever the name holds', () => {
    const proc = join(dir, 'proc');
    mkdirSync(join(proc, String(process.pid)), { recursive: true });
    writeFileSync(join(proc, String(process.pid), 'stat'), `${process.pid} (a) R (b) Z 1 1 1 0 -1`);
    expect(processState(process.pid, proc)).toBe('Z');
    expect(isProcessAlive(process.pid, proc)).toBe(false);
    writeFileSync(join(proc, String(process.pid), 'stat'), `${process.pid} (node) S 1 1 1 0 -1`);
    expect(isProcessAlive(process.pid, proc)).toBe(true);
    expect(isProcessAlive(process.pid, join(dir, 'no-procfs'))).toBe(true);
  });

  it('release leaves a lock that another process has taken over', () => {
    const first = acquireProcessLock(db(), { pid: 1, host: 'box-a' });
    rmSync(first.path);
    acquireProcessLock(db(), { pid: 2, host: 'box-a' });
    first.release();
    expect(existsSync(first.path)).toBe(true);
  });
});

/**
 * A real zombie: a shell starts a short child, prints its pid and blocks in `read`, so the child
 * exits unreaped (state Z). `reap` lets the shell go on to `wait`, which reaps it, and exit.
 */
async function startZombie(): Promise<{ pid: number; reap: () => Promise<void> }> {
  const parent: ChildProcessByStdio<Writable, Readable, null> = spawn(
    'sh',
    ['-c', 'sleep 0.01 & echo $!; read line; wait'],
    { stdio: ['pipe', 'pipe', 'ignore'] },
  );
  const exited = new Promise<void>((resolve) => parent.once('exit', () => resolve()));
  const reap = async () => {
    parent.stdin.end('\n');
    await exited;
  };
  try {
    const pid = await new Promise<number>((resolve, reject) => {
      parent.stdout.once('data', (d: Buffer) => resolve(Number(d.toString('utf8').trim())));
      parent.once('error', reject);
    });
    await waitFor(() => processState(pid) === 'Z', 5000, `pid ${pid} to be a zombie`);
    return { pid, reap };
  } catch (err) {
    await reap();
    throw err;
  }
}
