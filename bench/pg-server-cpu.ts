import { readdirSync } from 'node:fs';
import pg from 'pg';
import { procCpuMs, procStatFields, ticksToMs } from './proc-cpu.js';

/** The postmaster's pid, read as the parent of the backend this connection gets. */
export async function postmasterPid(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
    const ppid = Number(procStatFields(rows[0]!.pid)?.[1]);
    if (!Number.isInteger(ppid) || ppid <= 1)
      throw new Error('no /proc entry for the PostgreSQL backend: is the server on this machine?');
    return ppid;
  } finally {
    await client.end();
  }
}

/**
 * CPU milliseconds the whole PostgreSQL server has used: the postmaster, every live child (backends,
 * WAL writer, checkpointer, autovacuum) and the children it already reaped (the postmaster's
 * `cutime`/`cstime`), so a backend that ended between two readings is still counted. Read from /proc, as
 * the Errand processes' CPU is (bench/proc-cpu.ts).
 */
export function serverCpuMs(postmaster: number): number {
  const own = procStatFields(postmaster);
  if (!own) throw new Error(`PostgreSQL's postmaster ${postmaster} is gone`);
  let total = ticksToMs(Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]));
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (Number(procStatFields(pid)?.[1]) === postmaster) total += procCpuMs(pid) ?? 0;
  }
  return total;
}
