import { readFileSync, rmSync, utimesSync, writeFileSync, statSync } from 'node:fs';
import { hostname as osHostname } from 'node:os';
import { z } from 'zod';
import { DatabaseError } from '../errors.js';
import { PRIVATE_FILE_MODE } from './database-location.js';
import { isProcessAlive } from './process-alive.js';

/** How often the holder touches the lock file, and after how long without a touch it counts as abandoned. */
export const LOCK_REFRESH_MS = 15_000;
export const LOCK_STALE_MS = 60_000;

const holderSchema = z.object({ pid: z.number().int(), host: z.string(), since: z.number() });
type Holder = z.infer<typeof holderSchema>;

export interface ProcessLockOptions {
  pid?: number;
  host?: string;
  now?: () => number;
  /** Whether a process of this host is alive (default: it exists and, where /proc tells, is no zombie). */
  isAlive?: (pid: number) => boolean;
}

/** The lock one Errand process holds on its SQLite file. */
export interface ProcessLock {
  readonly path: string;
  /** Marks the lock as still held (call every LOCK_REFRESH_MS), so other hosts can tell it from an abandoned one. */
  refresh(): void;
  /** Removes the lock file if it is still ours. */
  release(): void;
}

function readHolder(path: string): { holder: Holder | null; touchedAt: number } | null {
  try {
    const touchedAt = statSync(path).mtimeMs;
    const parsed = holderSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
    return { holder: parsed.success ? parsed.data : null, touchedAt };
  } catch (err) {
    if ((err as { code?: string }).code === 'ENOENT') return null;
    return { holder: null, touchedAt: 0 };
  }
}

/**
 * Claims `<database>.lock` for this process, so a second Errand on the same SQLite file refuses
 * to start instead of re-running the first one's work. The file holds pid, host and start time.
 * A lock is stale — and taken over — when its process is dead or a zombie (same host), when the file is
 * unreadable, or when nobody touched it for LOCK_STALE_MS (another host, or a reused pid).
 * Throws DatabaseError naming the holder otherwise.
 */
export function acquireProcessLock(databasePath: string, options: ProcessLockOptions = {}): ProcessLock {
  const path = `${databasePath}.lock`;
  const me: Holder = {
    pid: options.pid ?? process.pid,
    host: options.host ?? osHostname(),
    since: (options.now ?? Date.now)(),
  };
  const now = options.now ?? Date.now;
  const isAlive = options.isAlive ?? ((pid: number) => isProcessAlive(pid));
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(path, JSON.stringify(me), { flag: 'wx', mode: PRIVATE_FILE_MODE });
      return {
        path,
        refresh() {
          const t = new Date(now());
          try {
            utimesSync(path, t, t);
          } catch {
            // The file vanished (removed by hand): nothing to refresh; the next start re-creates it.
          }
        },
        release() {
          const current = readHolder(path);
          if (
            current?.holder &&
            current.holder.pid === me.pid &&
            current.holder.host === me.host &&
            current.holder.since === me.since
          )
            rmSync(path, { force: true });
        },
      };
    } catch (err) {
      if ((err as { code?: string }).code !== 'EEXIST') {
        throw new DatabaseError(
          `DATABASE_PATH=${databasePath}: cannot create the lock file ${path} (${(err as { code?: string }).code ?? String(err)}). Make the directory writable.`,
          { cause: err },
        );
      }
    }
    const current = readHolder(path);
    if (current === null) continue;
    const { holder, touchedAt } = current;
    const abandoned = now() - touchedAt > LOCK_STALE_MS;
    const dead = holder !== null && holder.host === me.host && !isAlive(holder.pid);
    if (holder === null || dead || abandoned) {
      rmSync(path, { force: true });
      continue;
    }
    const since = new Date(holder.since).toISOString();
    throw new DatabaseError(
      `Another Errand process is using DATABASE_PATH=${databasePath}: pid ${holder.pid} on host ${holder.host}, running since ${since}. ` +
        `Stop it first, or give this one its own DATABASE_PATH. If that process is gone, delete ${path} (it is also taken over after ${LOCK_STALE_MS / 1000} s without updates).`,
    );
  }
  throw new DatabaseError(
    `DATABASE_PATH=${databasePath}: could not claim ${path}; another process keeps replacing it.`,
  );
}
