import { spawn, type ChildProcess } from 'node:child_process';
import { compiledBenchFile } from './compiled.js';
import { startCommand } from './start-command.js';

/** CPU microseconds a process has used, from its own `process.cpuUsage()`. */
export interface CpuSample {
  readonly user: number;
  readonly system: number;
  readonly rss: number;
}

/** A bot running in its own process, driven by the benchmark in this one. */
export interface BotProcess {
  /** The bot's process id (its CPU can also be read from /proc, as the outside harness reads it). */
  readonly pid: number;
  /** What the bot reported when it was up (e.g. `port`). */
  readonly info: Record<string, unknown>;
  cpu(): Promise<CpuSample>;
  idle(): Promise<void>;
  stop(): Promise<void>;
}

/** CPU milliseconds between two samples. */
export function cpuMs(from: CpuSample, to: CpuSample): number {
  return (to.user - from.user + to.system - from.system) / 1000;
}

/**
 * Starts `script` (a bench entry point, compiled: see compiled.ts) in a child process with
 * `env`. `BENCH_NODE_FLAGS` adds node flags to the children whose `KIND` is listed in `BENCH_PROFILE`
 * (e.g. `BENCH_PROFILE=errand BENCH_NODE_FLAGS="--cpu-prof --cpu-prof-dir=/tmp/prof"`); `BENCH_BOT_STDOUT=1`
 * shows the bots' stdout (Errand's log lines); otherwise it goes to /dev/null, still written by pino.
 */
export async function startBotProcess(script: string, env: Record<string, string>): Promise<BotProcess> {
  const profiled = env.KIND !== undefined && (process.env.BENCH_PROFILE ?? '').split(',').includes(env.KIND);
  const flags = profiled ? (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter((f) => f !== '') : [];
  // Errand runs with the flags and environment of `npm start`; the bare bot with node's defaults.
  const start = env.KIND === 'errand' ? startCommand() : { env: {}, flags: [] };
  const child: ChildProcess = spawn(
    process.execPath,
    [...start.flags, ...flags, compiledBenchFile(`bench/${script}`)],
    {
      env: { ...process.env, ...start.env, ...env },
      stdio: ['ignore', process.env.BENCH_BOT_STDOUT === '1' ? 'inherit' : 'ignore', 'inherit', 'ipc'],
    },
  );
  let next = 1;
  const pending = new Map<number, (m: Record<string, unknown>) => void>();
  const ready = new Promise<Record<string, unknown>>((resolve, reject) => {
    pending.set(0, resolve);
    child.once('exit', (code) => reject(new Error(`bench bot ${script} exited with ${code}`)));
  });
  child.on('message', (raw) => {
    const m = raw as Record<string, unknown>;
    const resolve = pending.get(Number(m.id));
    pending.delete(Number(m.id));
    resolve?.(m);
  });
  const ask = (type: string) =>
    new Promise<Record<string, unknown>>((resolve) => {
      const id = next++;
      pending.set(id, resolve);
      child.send({ id, type });
    });
  const info = await ready;
  return {
    pid: child.pid!,
    info,
    cpu: async () => {
      const m = await ask('cpu');
      return { user: Number(m.user), system: Number(m.system), rss: Number(m.rss) };
    },
    idle: async () => void (await ask('idle')),
    stop: async () => {
      const exited = new Promise((r) => child.once('exit', r));
      await ask('stop');
      await exited;
    },
  };
}
