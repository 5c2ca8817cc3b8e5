import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startCommand } from './start-command.js';

const root = fileURLToPath(new URL('..', import.meta.url));
let built = false;

function buildOnce(): void {
  if (built) return;
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
  built = true;
}

/**
 * The arguments for `node`, from the project root, that start Errand as `npm start` does (the start script's
 * flags and dist/src/main.js, built once per bench run): for benchmarks that start processes through the
 * tests' helpers, whose own build exists only inside a vitest run.
 */
export function entryArgs(): string[] {
  buildOnce();
  return [...startCommand().flags, 'dist/src/main.js'];
}

/** Errand's real entry point in a child process, started as `npm start` starts it. */
export interface EntryProcess {
  readonly pid: number;
  /** Where its stdout and stderr (pino's log lines) go, as the outside harness sends them to a file. */
  readonly logFile: string;
  running(): boolean;
  stop(): Promise<void>;
}

/**
 * Builds dist/ with scripts/build.mjs (once per bench run, as `npm start` builds) and starts
 * `node <start flags> dist/src/main.js` with the start script's flags and `env` only (plus PATH and
 * HOME); resolves once `ready()` answers true, so the bench measures what a user starts, not an
 * in-process composition of it.
 */
export async function startErrandEntry(
  env: Record<string, string>,
  ready: () => Promise<boolean>,
): Promise<EntryProcess> {
  buildOnce();
  const start = startCommand();
  const logFile = join(mkdtempSync(join(tmpdir(), 'errand-bench-entry-')), 'errand.log');
  const fd = openSync(logFile, 'a');
  const child = spawn(process.execPath, [...start.flags, 'dist/src/main.js'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...start.env, ...env },
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  let exited = false;
  const exit = new Promise<void>((resolve) => child.once('exit', () => ((exited = true), resolve())));
  const stop = async () => {
    if (!exited) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exit;
    clearTimeout(timer);
  };
  for (
    const end = Date.now() + 60_000;
    !(await ready().catch(() => false));
    await new Promise((r) => setTimeout(r, 100))
  ) {
    if (exited || Date.now() > end) {
      await stop();
      throw new Error(`Errand did not become ready: ${readFileSync(logFile, 'utf8').slice(-2_000)}`);
    }
  }
  return { pid: child.pid!, logFile, running: () => !exited, stop };
}
