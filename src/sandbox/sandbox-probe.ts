import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { systemClock } from '../clock.js';
import { readHostLayout } from './host-layout.js';
import { CODE_LANGUAGES, sandboxCommand, type CodeLanguage, type HostLayout } from './sandbox-command.js';
import { runSandboxed, type HostUser } from './sandbox-process.js';
import { packWorkspace } from './workspace-archive.js';

/** Whether code can run here, and with what; when not, why and how to fix it (logged at start-up). */
export type SandboxAvailability =
  | {
      readonly available: true;
      readonly bwrap: string;
      readonly layout: HostLayout;
      readonly runAs: HostUser | null;
      readonly languages: readonly CodeLanguage[];
    }
  | { readonly available: false; readonly reason: string; readonly fix: string };

/**
 * The host user bwrap runs as when Errand is root: an unprivileged one. A process limit (RLIMIT_NPROC) does not
 * hold for uid 0, and an escape from the namespaces should find nobody, not root.
 */
export const ROOT_RUNS_SANDBOX_AS: HostUser = { uid: 65534, gid: 65534 };

const NAMESPACES_FIX =
  'Allow unprivileged user namespaces: `sysctl -w user.max_user_namespaces=15000` (and `kernel.unprivileged_userns_clone=1` on older Debian/Ubuntu kernels; on Ubuntu 24.04 `kernel.apparmor_restrict_unprivileged_userns=0` or an AppArmor profile for bwrap). In a container, start it with `--security-opt seccomp=unconfined --security-opt apparmor=unconfined --security-opt systempaths=unconfined` (README "Running code").';

/** bwrap on PATH, as an absolute path (the sandbox is spawned with an empty environment). */
export function findOnPath(name: string, path = process.env.PATH ?? ''): string | null {
  for (const dir of path.split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

/** Why a failed probe failed, from bwrap's own words, with the fix. */
export function diagnoseProbeFailure(stderr: string): { reason: string; fix: string } {
  const said = stderr.trim().split('\n').slice(0, 3).join(' ') || 'no message';
  if (/namespace|uid map|Operation not permitted|Permission denied|setting up/i.test(stderr)) {
    return { reason: `bubblewrap cannot create the sandbox's namespaces here (${said})`, fix: NAMESPACES_FIX };
  }
  if (/Can't mount proc|mount/i.test(stderr)) {
    return { reason: `bubblewrap cannot mount the sandbox's filesystems here (${said})`, fix: NAMESPACES_FIX };
  }
  return {
    reason: `a test run of the sandbox failed (${said})`,
    fix: 'Run `bwrap --unshare-all --ro-bind /usr /usr true` by hand as the user Errand runs as to see why, then see README "Running code".',
  };
}

/**
 * Finds out whether `run_code` can be offered: Linux, bubblewrap installed, and a real sandbox (the same command
 * line calls get) starting and running a script that says which interpreters it finds. Never throws.
 */
export async function probeSandbox(
  options: { nodePath?: string; platform?: string; path?: string } = {},
): Promise<SandboxAvailability> {
  if ((options.platform ?? process.platform) !== 'linux') {
    return {
      available: false,
      reason: `the sandbox needs Linux (this is ${options.platform ?? process.platform})`,
      fix: 'Run Errand on Linux, or in its Docker image (README "Running code").',
    };
  }
  const bwrap = findOnPath('bwrap', options.path);
  if (!bwrap)
    return {
      available: false,
      reason: 'bubblewrap (bwrap) is not installed',
      fix: 'Install it: `apt-get install bubblewrap` (Debian/Ubuntu), `dnf install bubblewrap` (Fedora).',
    };
  const help = spawnSync(bwrap, ['--help'], { encoding: 'utf8', timeout: 5000 });
  const layout = readHostLayout(
    options.nodePath ?? process.execPath,
    `${help.stdout}${help.stderr}`.includes('--disable-userns'),
  );
  const runAs = process.getuid?.() === 0 ? ROOT_RUNS_SANDBOX_AS : null;
  const check = `[ -x ${layout.python} ] && echo python; [ -x ${layout.node} ] && echo javascript; echo bash`;
  const limits = { timeoutMs: 15_000, memoryMb: 256, maxProcesses: 16, fileSizeMb: 1, workspaceMb: 1, tmpMb: 1 };
  const command = sandboxCommand({ language: 'bash', code: check, limits, layout, proxySocket: null, hasFiles: false });
  const outcome = await runSandboxed({
    command,
    bwrap,
    runAs,
    archive: await packWorkspace([]),
    timeoutMs: limits.timeoutMs,
    outputCapBytes: 4096,
    archiveCapBytes: 1 << 20,
    clock: systemClock,
  });
  if (outcome.end === 'not_started')
    return {
      available: false,
      reason: `bubblewrap could not be started (${outcome.startError ?? 'unknown error'})`,
      fix: 'Check that bwrap is installed and executable by the user Errand runs as.',
    };
  if (outcome.end !== 'exited' || outcome.exitCode !== 0)
    return {
      available: false,
      ...diagnoseProbeFailure(outcome.stderr.text || `exit ${outcome.exitCode ?? outcome.end}`),
    };
  const found = new Set(outcome.stdout.text.split('\n'));
  const languages = CODE_LANGUAGES.filter((l) => found.has(l));
  return { available: true, bwrap, layout, runAs, languages };
}
