import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

let ticks: number | null = null;

/** Milliseconds of `n` clock ticks (the unit of /proc's CPU times). */
export function ticksToMs(n: number): number {
  ticks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })) || 100;
  return (n * 1000) / ticks;
}

/** The fields after the command name in `/proc/<pid>/stat` (index 0 is the state, 1 the parent), or null when it is gone. */
export function procStatFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${String(pid)}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/**
 * CPU milliseconds (user + system, every thread) a process has used, read from `/proc/<pid>/stat` as
 * the outside perf harness (`../shared/blackbox-perf`) reads it, so both harnesses count the same
 * thing for both bots; null where there is no /proc or the process is gone.
 */
export function procCpuMs(pid: number): number | null {
  const fields = procStatFields(pid);
  return fields ? ticksToMs(Number(fields[11]) + Number(fields[12])) : null;
}
