/**
 * The bubblewrap command line of one `run_code` call, built from values only (no I/O), so what the sandbox
 * sees is written in one place a reviewer reads and a unit test pins. See README "Running code".
 */

/** The languages `run_code` runs. */
export const CODE_LANGUAGES = ['python', 'javascript', 'bash'] as const;
/** A language `run_code` takes (the tool's `language` argument). */
export type CodeLanguage = (typeof CODE_LANGUAGES)[number];

/** The limits of one call, already resolved from `sandbox.*` and the call's `timeout_seconds`. */
export interface SandboxLimits {
  readonly timeoutMs: number;
  /** Address space of each process (RLIMIT_AS); node gets NODE_RESERVE_MB more for what V8 reserves unused. */
  readonly memoryMb: number;
  /** Processes and threads of the call together (RLIMIT_NPROC, counted in the sandbox's own user namespace). */
  readonly maxProcesses: number;
  /** Largest file one process may write (RLIMIT_FSIZE). */
  readonly fileSizeMb: number;
  /** Size of the `/workspace` tmpfs (the quota, with some room to see it was passed). */
  readonly workspaceMb: number;
  /** Size of `/tmp` and of `/dev/shm` (each a tmpfs). */
  readonly tmpMb: number;
}

/**
 * What this host offers the sandbox, found once at start-up (host-layout.ts): the top-level entries that are
 * links into `/usr` (merged `/usr`) or directories of their own, the `/etc` entries programs read, and the
 * programs each language runs.
 */
export interface HostLayout {
  readonly links: readonly { readonly path: string; readonly target: string }[];
  readonly dirs: readonly string[];
  readonly etc: readonly string[];
  readonly python: string;
  readonly node: string;
  /** The install folder of `node` when it is outside `/usr` (mounted read-only at the same place), else null. */
  readonly nodeDir: string | null;
  readonly bash: string;
  /** Whether this bwrap has `--disable-userns` (0.8+): the code then cannot make user namespaces of its own. */
  readonly disableUserns: boolean;
}

/** Memory V8 reserves at start without using it (measured: node 20 maps ~730 MB of address space before any code). */
export const NODE_RESERVE_MB = 1024;

/** Where the code and its helpers appear inside the sandbox (a read-only file each, under a folder of its own). */
export const CODE_DIR = '/run/sandbox';
/** The in-sandbox end of the egress proxy (a unix socket bound in when `sandbox.network` lists hosts). */
export const PROXY_SOCKET = `${CODE_DIR}/proxy.sock`;
/** The port the in-sandbox forwarder listens on (127.0.0.1 of the sandbox's own network namespace). */
export const PROXY_PORT = 3128;

/** The uid and gid the code runs as inside the sandbox (its user namespace maps them to an unprivileged outside user). */
export const SANDBOX_UID = 1000;

/** A file bwrap copies in from a pipe before it starts the code: its fd in the spawned process and its path inside. */
export interface DataFile {
  readonly fd: number;
  readonly path: string;
  readonly text: string;
}

/** One call's bwrap invocation: the argv, and the files to write to which fds (fd 0 is the workspace archive in, fd 4 the one out). */
export interface SandboxCommand {
  readonly file: string;
  readonly args: readonly string[];
  readonly dataFiles: readonly DataFile[];
}

const MB = 1024 * 1024;

const EXTENSION: Record<CodeLanguage, string> = { python: 'py', javascript: 'js', bash: 'sh' };

/** The program line that runs the code file of a language. */
export function interpreterOf(language: CodeLanguage, layout: HostLayout, limits: SandboxLimits): string[] {
  const file = `${CODE_DIR}/main.${EXTENSION[language]}`;
  if (language === 'python') return [layout.python, file];
  if (language === 'javascript') return [layout.node, `--max-old-space-size=${limits.memoryMb}`, file];
  return [layout.bash, file];
}

/** Address space for the language's processes: node's V8 reserves a large range at start that it never touches. */
export function addressSpaceMb(language: CodeLanguage, limits: SandboxLimits): number {
  return language === 'javascript' ? limits.memoryMb + NODE_RESERVE_MB : limits.memoryMb;
}

/**
 * Runs inside the sandbox as the command: unpacks the workspace (fd 0), starts the proxy forwarder when there is
 * network, sets the limits (they hold for everything started after), runs the code without the archive fds, then
 * packs `/workspace` back to fd 4 and exits with the code's status. A call killed before the end packs nothing,
 * so its changes are not kept.
 */
export const PRELUDE = [
  'nproc=$1; as=$2; fsize=$3; forward=$4; unpack=$5; shift 5',
  'if [ "$unpack" = 1 ] && ! /usr/bin/tar -x -f - -C /workspace --no-same-owner 2>/dev/null; then echo "sandbox: the workspace could not be unpacked" >&2; exit 125; fi',
  'exec 0</dev/null',
  'if [ "$forward" != - ]; then exec 9< <("$forward" ' +
    `${CODE_DIR}/forward.py` +
    ' 4>&-); read -r -t 5 -u 9 ready; fi',
  'ulimit -c 0 && ulimit -u "$nproc" && ulimit -v "$as" && ulimit -f "$fsize" || { echo "sandbox: the limits could not be set" >&2; exit 125; }',
  'cd /workspace',
  '"$@" 4>&- 9<&-',
  'status=$?',
  '/usr/bin/tar -c -f - -C /workspace . >&4 2>/dev/null',
  'exit $status',
].join('\n');

/** The environment of the code: nothing of Errand's, only what programs need to find their way. */
export function sandboxEnv(network: boolean): [string, string][] {
  const env: [string, string][] = [
    ['PATH', '/usr/local/bin:/usr/bin:/bin'],
    ['HOME', '/workspace'],
    ['LANG', 'C.UTF-8'],
    ['MPLBACKEND', 'Agg'],
    ['MPLCONFIGDIR', '/tmp/matplotlib'],
    ['XDG_CACHE_HOME', '/tmp/.cache'],
    ['TMPDIR', '/tmp'],
  ];
  if (!network) return env;
  const proxy = `http://127.0.0.1:${PROXY_PORT}`;
  return [...env, ['HTTP_PROXY', proxy], ['HTTPS_PROXY', proxy], ['http_proxy', proxy], ['https_proxy', proxy]];
}

/** The synthetic `/etc` files: the sandbox's one user, its group, and its own name for loopback. */
const PASSWD = `sandbox:x:${SANDBOX_UID}:${SANDBOX_UID}:sandbox:/workspace:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n`;
const GROUP = `sandbox:x:${SANDBOX_UID}:\nnogroup:x:65534:\n`;
const HOSTS = '127.0.0.1\tlocalhost sandbox\n::1\tlocalhost ip6-localhost\n';

/** What one call's command line is made from. */
export interface CommandInput {
  readonly language: CodeLanguage;
  readonly code: string;
  readonly limits: SandboxLimits;
  readonly layout: HostLayout;
  /** The host path of the egress proxy's socket for this call; null: no network at all. */
  readonly proxySocket: string | null;
  /** The forwarder's source (network only). */
  readonly forwarder?: string;
  /** Whether the workspace has files to unpack (an empty one starts with `in/` and `out/` only, without running tar). */
  readonly hasFiles: boolean;
  /** Host folders shown read-only inside, each under `/skills/` (the skills enabled in the run: DESIGN.md "Skills"). */
  readonly readOnlyMounts?: readonly ReadOnlyMount[];
}

/** A host folder the code may read, never write: a skill's folder at `/skills/<name>`. */
export interface ReadOnlyMount {
  readonly hostPath: string;
  readonly sandboxPath: string;
}

/** Where read-only mounts may go: one level under `/skills/`, so that none can cover `/usr`, `/etc` or the workspace. */
const MOUNT_PATH = /^\/skills\/[a-z0-9]+(-[a-z0-9]+)*$/;

/**
 * The bwrap argv: new user (nested, with user namespaces disabled inside), PID, IPC, UTS, cgroup and network
 * namespaces; `/usr` and a few `/etc` entries read-only; `/workspace`, `/tmp` and `/dev/shm` as sized tmpfs; the
 * root read-only; an empty environment but for `sandboxEnv`; killed with its parent; its own session (no terminal).
 */
export function sandboxCommand(input: CommandInput): SandboxCommand {
  const { language, limits, layout } = input;
  const network = input.proxySocket !== null;
  const dataFiles: DataFile[] = [
    { fd: 3, path: `${CODE_DIR}/main.${EXTENSION[language]}`, text: input.code },
    { fd: 5, path: '/etc/passwd', text: PASSWD },
    { fd: 6, path: '/etc/group', text: GROUP },
    { fd: 7, path: '/etc/hosts', text: HOSTS },
    ...(network ? [{ fd: 8, path: `${CODE_DIR}/forward.py`, text: input.forwarder ?? '' }] : []),
  ];
  const args: string[] = [
    '--unshare-all',
    '--unshare-user',
    ...(layout.disableUserns ? ['--disable-userns'] : []),
    '--die-with-parent',
    '--new-session',
  ];
  args.push('--uid', String(SANDBOX_UID), '--gid', String(SANDBOX_UID), '--hostname', 'sandbox');
  args.push('--ro-bind', '/usr', '/usr');
  for (const l of layout.links) args.push('--symlink', l.target, l.path);
  for (const d of layout.dirs) args.push('--ro-bind', d, d);
  if (layout.nodeDir) args.push('--ro-bind-try', layout.nodeDir, layout.nodeDir);
  for (const e of layout.etc) args.push('--ro-bind-try', e, e);
  args.push('--proc', '/proc', '--dev', '/dev');
  args.push('--size', String(limits.tmpMb * MB), '--tmpfs', '/tmp');
  args.push('--size', String(limits.tmpMb * MB), '--tmpfs', '/dev/shm');
  args.push(
    '--size',
    String(limits.workspaceMb * MB),
    '--tmpfs',
    '/workspace',
    '--dir',
    '/workspace/in',
    '--dir',
    '/workspace/out',
  );
  for (const f of dataFiles) args.push('--ro-bind-data', String(f.fd), f.path);
  for (const m of input.readOnlyMounts ?? []) {
    if (!MOUNT_PATH.test(m.sandboxPath))
      throw new Error(`a read-only mount may only go to /skills/<name>, not ${m.sandboxPath}`);
    args.push('--ro-bind', m.hostPath, m.sandboxPath);
  }
  if (input.proxySocket) args.push('--bind', input.proxySocket, PROXY_SOCKET);
  args.push('--remount-ro', '/', '--chdir', '/workspace', '--clearenv');
  for (const [k, v] of sandboxEnv(network)) args.push('--setenv', k, v);
  const asKb = addressSpaceMb(language, limits) * 1024;
  const limitArgs = [
    String(limits.maxProcesses),
    String(asKb),
    String(limits.fileSizeMb * 1024),
    network ? layout.python : '-',
    input.hasFiles ? '1' : '0',
  ];
  args.push('--', layout.bash, '-c', PRELUDE, 'sandbox', ...limitArgs, ...interpreterOf(language, layout, limits));
  return { file: 'bwrap', args, dataFiles };
}
