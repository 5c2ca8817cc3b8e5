import { spawn, type StdioPipe } from 'node:child_process';
import { constants } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import type { Clock } from '../clock.js';
import { cappedCapture, type CapturedText } from './capped-capture.js';
import type { SandboxCommand } from './sandbox-command.js';

/** How a sandboxed call ended. */
export type SandboxEnd =
  /** The code ran to its end (whatever its exit status). */
  | 'exited'
  /** Killed at its time limit. */
  | 'timed_out'
  /** Killed because the run was stopped (`/stop`) or Errand is shutting down. */
  | 'stopped'
  /** bwrap could not be started at all. */
  | 'not_started';

/** What a sandboxed call left: how it ended, its output, and the workspace archive when it ended by itself. */
export interface SandboxOutcome {
  readonly end: SandboxEnd;
  /** The code's exit status (a signal shows as 128 + its number, as the shell reports it); null when killed or not started. */
  readonly exitCode: number | null;
  readonly stdout: CapturedText;
  readonly stderr: CapturedText;
  /** The workspace as the code left it (a tar archive); null when the call was killed or did not pack it. */
  readonly archive: Buffer | null;
  readonly durationMs: number;
  /** Why bwrap could not be started (`not_started`). */
  readonly startError?: string;
}

/** Who bwrap runs as on the host: Errand's own user, or (when Errand is root) an unprivileged one. */
export interface HostUser {
  readonly uid: number;
  readonly gid: number;
}

/** One bwrap process to start: its command, who runs it, what goes in, and its limits on time and output. */
export interface SandboxSpawn {
  readonly command: SandboxCommand;
  /** bwrap's absolute path (found once at start-up). */
  readonly bwrap: string;
  readonly runAs: HostUser | null;
  /** The workspace to unpack in `/workspace` (a tar archive, written to fd 0). */
  readonly archive: Buffer;
  readonly timeoutMs: number;
  /** Stops the call (the run was stopped, or Errand shuts down). */
  readonly signal?: AbortSignal;
  /** Most bytes kept of stdout and of stderr each (head and tail). */
  readonly outputCapBytes: number;
  /** Most bytes read of the archive coming back; past it the call's changes are not kept. */
  readonly archiveCapBytes: number;
  readonly clock: Clock;
}

const ignore = () => undefined;

/**
 * Runs one sandboxed call and collects what it printed and left. bwrap is spawned in a process group of its
 * own with an empty environment; a time limit, a stop or a shutdown SIGKILLs the group, and bwrap's
 * `--die-with-parent` takes its PID namespace (so every process of the call) down with it.
 */
export function runSandboxed(plan: SandboxSpawn): Promise<SandboxOutcome> {
  const { command, clock } = plan;
  const started = clock.now();
  const fdCount = Math.max(5, ...command.dataFiles.map((f) => f.fd + 1));
  const stdio: StdioPipe[] = Array.from({ length: fdCount }, () => 'pipe' as const);
  const stdout = cappedCapture(plan.outputCapBytes);
  const stderr = cappedCapture(plan.outputCapBytes);
  return new Promise<SandboxOutcome>((resolve) => {
    let killedFor: SandboxEnd | null = null;
    let settled = false;
    const child = spawn(plan.bwrap, command.args, {
      stdio,
      detached: true,
      env: {},
      ...(plan.runAs ? { uid: plan.runAs.uid, gid: plan.runAs.gid } : {}),
    });
    const archive: Buffer[] = [];
    let archiveBytes = 0;
    let archiveTooBig = false;
    const finish = (outcome: Omit<SandboxOutcome, 'durationMs' | 'stdout' | 'stderr'>) => {
      if (settled) return;
      settled = true;
      clock.clearTimer(timer);
      plan.signal?.removeEventListener('abort', onAbort);
      resolve({ ...outcome, stdout: stdout.result(), stderr: stderr.result(), durationMs: clock.now() - started });
    };
    const kill = (why: SandboxEnd) => {
      if (settled || killedFor !== null) return;
      killedFor = why;
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const onAbort = () => kill('stopped');
    const timer = clock.setTimer(() => kill('timed_out'), plan.timeoutMs);
    if (plan.signal?.aborted) kill('stopped');
    else plan.signal?.addEventListener('abort', onAbort, { once: true });

    child.on('error', (err) => finish({ end: 'not_started', exitCode: null, archive: null, startError: err.message }));
    const pipes = child.stdio as unknown as (Readable & Writable)[];
    for (const p of pipes) p?.on('error', ignore);
    pipes[1]?.on('data', (c: Buffer) => stdout.push(c));
    pipes[2]?.on('data', (c: Buffer) => stderr.push(c));
    pipes[4]?.on('data', (c: Buffer) => {
      archiveBytes += c.length;
      if (archiveBytes > plan.archiveCapBytes) archiveTooBig = true;
      else archive.push(c);
    });
    for (const f of command.dataFiles) pipes[f.fd]?.end(f.text);
    pipes[0]?.end(plan.archive);
    child.on('close', (code, signal) => {
      if (killedFor !== null) return finish({ end: killedFor, exitCode: null, archive: null });
      const exitCode = code ?? (signal ? 128 + signalNumber(signal) : null);
      finish({ end: 'exited', exitCode, archive: archiveTooBig || archiveBytes === 0 ? null : Buffer.concat(archive) });
    });
  });
}

function signalNumber(signal: NodeJS.Signals): number {
  return constants.signals[signal] ?? 0;
}
