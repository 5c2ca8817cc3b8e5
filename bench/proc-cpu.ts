import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

let ticks: number | null = null;

/**
 * CPU milliseconds (user + system, every thread) a process has used, read from `/proc/<pid>/stat` as
 * the outside perf harness (`../shared/blackbox-perf`) reads it, so both harnesses count the same
 * thing for both bots; null where there is no /proc or the process is gone.
 */
export function procCpuMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${String(pid)}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    ticks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })) || 100;
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticks;
  } catch {
    return null;
  }
}
