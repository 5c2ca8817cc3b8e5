import { existsSync, lstatSync, readdirSync, readlinkSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { HostLayout } from './sandbox-command.js';

/** Top-level entries programs expect beside `/usr`: links into it on a merged-/usr system, else directories. */
const TOP_LEVEL = ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

/**
 * The `/etc` entries programs read, and nothing else of `/etc`: the dynamic linker's cache, Debian's alternatives
 * (`awk` → `mawk`), CA certificates (HTTPS through the proxy), fonts (matplotlib), the time zone, MIME types, and
 * Debian's Python and matplotlib settings. `passwd`, `group` and `hosts` are the sandbox's own (sandbox-command.ts).
 */
const ETC = [
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  '/etc/alternatives',
  '/etc/ssl/certs',
  '/etc/ca-certificates',
  '/etc/fonts',
  '/etc/localtime',
  '/etc/timezone',
  '/etc/mime.types',
  '/etc/matplotlibrc',
  '/etc/nsswitch.conf',
];

/**
 * The first of Errand's own places (its working folder with `.env`, data folder, configuration file) that a path
 * the sandbox mounts would show to the code, or null. Errand installed under `/usr` would put its secrets in view.
 */
export function exposedPrivatePath(layout: HostLayout, privatePaths: readonly string[]): string | null {
  const mounted = ['/usr', ...layout.dirs, ...(layout.nodeDir ? [layout.nodeDir] : []), ...layout.etc];
  const inside = (path: string, dir: string) => path === dir || path.startsWith(`${dir}/`);
  return privatePaths.find((p) => p !== '' && mounted.some((m) => inside(resolve(p), m))) ?? null;
}

/** Where Debian's Python lives: the sandbox runs this one, never a pyenv or virtualenv shim on Errand's PATH. */
export const SYSTEM_PYTHON = '/usr/bin/python3';

/**
 * Reads what this host offers the sandbox. `nodePath` is the node that runs Errand (`process.execPath`): code
 * in `javascript` runs on it, its install folder mounted read-only when it is not under `/usr`.
 */
export function readHostLayout(nodePath: string, disableUserns: boolean): HostLayout {
  const links: { path: string; target: string }[] = [];
  const dirs: string[] = [];
  for (const path of TOP_LEVEL) {
    let stat;
    try {
      stat = lstatSync(path);
    } catch {
      continue;
    }
    if (stat.isSymbolicLink()) links.push({ path, target: readlinkSync(path) });
    else if (stat.isDirectory()) dirs.push(path);
  }
  const python = readdirSync('/etc')
    .filter((n) => /^python3(\.\d+)?$/.test(n))
    .map((n) => `/etc/${n}`);
  const etc = [...ETC, ...python].filter((p) => existsSync(p));
  // Never a top-level folder (a node at /bin/node or /opt/node would make it `/` or `/opt`): that is `/usr`'s or nobody's.
  const install = dirname(dirname(nodePath));
  const nodeDir = nodePath.startsWith('/usr/') || install.split('/').filter(Boolean).length < 2 ? null : install;
  return { links, dirs, etc, python: SYSTEM_PYTHON, node: nodePath, nodeDir, bash: '/bin/bash', disableUserns };
}
