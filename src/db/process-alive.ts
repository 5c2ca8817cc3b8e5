import { readFileSync } from 'node:fs';

/**
 * Whether process `pid` of this host is alive. `process.kill(pid, 0)` also succeeds for a zombie
 * (a process that has exited but that its parent has not reaped yet, as after a SIGKILL under an
 * init that reaps slowly), so where `/proc` exists the process's state is read too: `Z` (zombie)
 * and `X` (dead) count as gone. A process owned by another user (EPERM) counts as alive.
 */
export function isProcessAlive(pid: number, procRoot = '/proc'): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as { code?: string }).code === 'EPERM';
  }
  const state = processState(pid, procRoot);
  return state !== 'Z' && state !== 'X';
}

/**
 * The one-letter state from `/proc/<pid>/stat` ("R", "S", "Z", …), or null where there is no such
 * file (no procfs, or the process just went away). The command name in parentheses may itself
 * hold spaces and parentheses, so the state is read after the last `)`.
 */
export function processState(pid: number, procRoot = '/proc'): string | null {
  let stat: string;
  try {
    stat = readFileSync(`${procRoot}/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  const match = /^\s*(\S)/.exec(stat.slice(stat.lastIndexOf(')') + 1));
  return match ? match[1]! : null;
}
