import { describe, expect, it } from 'vitest';
import { cappedCapture } from '../../src/sandbox/capped-capture.js';
import { forModel, limitsFor } from '../../src/sandbox/code-runner.js';
import { NODE_RESERVE_MB, PROXY_SOCKET, sandboxCommand, type HostLayout } from '../../src/sandbox/sandbox-command.js';
import { diagnoseProbeFailure } from '../../src/sandbox/sandbox-probe.js';
import { exposedPrivatePath } from '../../src/sandbox/host-layout.js';
import { sandboxSettingsSchema } from '../../src/settings/sandbox-settings.js';

const layout: HostLayout = {
  links: [{ path: '/bin', target: 'usr/bin' }],
  dirs: ['/lib64'],
  etc: ['/etc/ld.so.cache', '/etc/ssl/certs'],
  python: '/usr/bin/python3',
  node: '/opt/node/bin/node',
  nodeDir: '/opt/node',
  bash: '/bin/bash',
  disableUserns: true,
};
const limits = { timeoutMs: 60_000, memoryMb: 512, maxProcesses: 64, fileSizeMb: 100, workspaceMb: 110, tmpMb: 256 };

/** The value after each occurrence of a flag. */
function valuesOf(args: readonly string[], flag: string, width = 1): string[][] {
  return args.flatMap((a, i) => (a === flag ? [args.slice(i + 1, i + 1 + width)] : []));
}

describe('the sandbox command line', () => {
  const { args, dataFiles } = sandboxCommand({
    language: 'python',
    code: 'print(1)',
    limits,
    layout,
    proxySocket: null,
    hasFiles: true,
  });

  it('unshares every namespace, dies with Errand, runs in its own session and cannot nest user namespaces', () => {
    expect(args.slice(0, 5)).toEqual([
      '--unshare-all',
      '--unshare-user',
      '--disable-userns',
      '--die-with-parent',
      '--new-session',
    ]);
    expect(args).not.toContain('--share-net');
  });

  it('binds only /usr, its links, the node install and a few /etc entries, all read-only, and makes the root read-only', () => {
    const binds = [...valuesOf(args, '--bind', 2), ...valuesOf(args, '--dev-bind', 2)];
    expect(binds).toEqual([]);
    expect(valuesOf(args, '--ro-bind', 2)).toEqual([
      ['/usr', '/usr'],
      ['/lib64', '/lib64'],
    ]);
    expect(valuesOf(args, '--ro-bind-try', 2).map((p) => p[0])).toEqual([
      '/opt/node',
      '/etc/ld.so.cache',
      '/etc/ssl/certs',
    ]);
    expect(valuesOf(args, '--tmpfs').flat()).toEqual(['/tmp', '/dev/shm', '/workspace']);
    expect(valuesOf(args, '--size').flat()).toEqual([
      String(256 * 2 ** 20),
      String(256 * 2 ** 20),
      String(110 * 2 ** 20),
    ]);
    expect(valuesOf(args, '--remount-ro').flat()).toEqual(['/']);
    expect(dataFiles.map((f) => f.path)).toEqual(['/run/sandbox/main.py', '/etc/passwd', '/etc/group', '/etc/hosts']);
  });

  it('clears the environment and sets only what programs need, no proxy without network', () => {
    expect(args).toContain('--clearenv');
    expect(valuesOf(args, '--setenv', 2).map((p) => p[0])).toEqual([
      'PATH',
      'HOME',
      'LANG',
      'MPLBACKEND',
      'MPLCONFIGDIR',
      'XDG_CACHE_HOME',
      'TMPDIR',
    ]);
  });

  it('runs the code file under the limits: processes, address space, file size', () => {
    const tail = args.slice(args.indexOf('--') + 1);
    expect(tail.slice(0, 2)).toEqual(['/bin/bash', '-c']);
    expect(tail.slice(3)).toEqual([
      'sandbox',
      '64',
      String(512 * 1024),
      String(100 * 1024),
      '-',
      '1',
      '/usr/bin/python3',
      '/run/sandbox/main.py',
    ]);
  });

  it('gives node the room V8 reserves, and caps its heap at the memory limit', () => {
    const js = sandboxCommand({
      language: 'javascript',
      code: '1',
      limits,
      layout,
      proxySocket: null,
      hasFiles: false,
    }).args;
    const tail = js.slice(js.indexOf('--') + 5);
    expect(tail).toEqual([
      '64',
      String((512 + NODE_RESERVE_MB) * 1024),
      String(100 * 1024),
      '-',
      '0',
      '/opt/node/bin/node',
      '--max-old-space-size=512',
      '/run/sandbox/main.js',
    ]);
  });

  it('with network, binds the proxy socket and points the proxy variables at the forwarder', () => {
    const net = sandboxCommand({
      language: 'bash',
      code: 'true',
      limits,
      layout,
      proxySocket: '/tmp/x/proxy.sock',
      forwarder: 'print()',
      hasFiles: false,
    });
    expect(valuesOf(net.args, '--bind', 2)).toEqual([['/tmp/x/proxy.sock', PROXY_SOCKET]]);
    expect(Object.fromEntries(valuesOf(net.args, '--setenv', 2))).toMatchObject({
      HTTPS_PROXY: 'http://127.0.0.1:3128',
      http_proxy: 'http://127.0.0.1:3128',
    });
    expect(net.dataFiles.at(-1)).toMatchObject({ fd: 8, path: '/run/sandbox/forward.py', text: 'print()' });
  });
});

describe("the skills' read-only mounts", () => {
  it('binds a skill folder read-only at /skills/<name>, before the root is made read-only', () => {
    const { args } = sandboxCommand({
      language: 'bash',
      code: 'true',
      limits,
      layout,
      proxySocket: null,
      hasFiles: false,
      readOnlyMounts: [{ hostPath: '/srv/skills/triage', sandboxPath: '/skills/triage' }],
    });
    const at = args.indexOf('/srv/skills/triage');
    expect(args.slice(at - 1, at + 2)).toEqual(['--ro-bind', '/srv/skills/triage', '/skills/triage']);
    expect(at).toBeLessThan(args.indexOf('--remount-ro'));
    expect(args).not.toContain('--bind');
  });

  it('refuses a mount anywhere but one level under /skills/ (it could cover /usr, /etc or the workspace)', () => {
    for (const sandboxPath of ['/usr', '/workspace', '/skills', '/skills/../etc', '/skills/a/b', '/etc/passwd']) {
      expect(() =>
        sandboxCommand({
          language: 'bash',
          code: 'true',
          limits,
          layout,
          proxySocket: null,
          hasFiles: false,
          readOnlyMounts: [{ hostPath: '/srv/x', sandboxPath }],
        }),
      ).toThrow(/only go to \/skills\/<name>/);
    }
  });
});

describe('limits and output', () => {
  it('caps timeout_seconds at sandbox.maxSeconds and defaults it to 60', () => {
    const settings = sandboxSettingsSchema.parse({ maxSeconds: 120, workspaceMb: 100 });
    expect(limitsFor(settings).timeoutMs).toBe(60_000);
    expect(limitsFor(settings, 500).timeoutMs).toBe(120_000);
    expect(limitsFor(settings, 5).timeoutMs).toBe(5_000);
    expect(limitsFor(settings).workspaceMb).toBeGreaterThan(100);
  });

  it('keeps the head and the tail of endless output within the cap', () => {
    const c = cappedCapture(100);
    for (let i = 0; i < 1000; i++) c.push(Buffer.from(`line ${String(i).padStart(4, '0')}\n`));
    const r = c.result();
    expect(r.totalBytes).toBe(10_000);
    expect(r.text.startsWith('line 0000\n')).toBe(true);
    expect(r.text.endsWith('line 0999\n')).toBe(true);
    expect(r.text).toContain('9900 bytes not kept');
    const small = cappedCapture(100);
    small.push(Buffer.from('short'));
    expect(small.result()).toEqual({ text: 'short', totalBytes: 5, omittedBytes: 0 });
  });

  it('shows the model at most 8 000 characters, head and tail, with a note', () => {
    const text = `${'a'.repeat(6000)}${'b'.repeat(6000)}`;
    const shown = forModel(text);
    expect(shown.length).toBeLessThan(8200);
    expect(shown.startsWith('a'.repeat(4000))).toBe(true);
    expect(shown.endsWith('b'.repeat(4000))).toBe(true);
    expect(shown).toContain('4000 characters cut');
    expect(forModel('short')).toBe('short');
  });
});

describe('the start-up probe', () => {
  it('names user namespaces as the cause, with the fix, when bwrap cannot create them', () => {
    const d = diagnoseProbeFailure(
      'bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces.',
    );
    expect(d.reason).toMatch(/cannot create the sandbox's namespaces/);
    expect(d.fix).toMatch(/max_user_namespaces/);
    expect(d.fix).toMatch(/seccomp=unconfined/);
  });
});

describe("Errand's own files", () => {
  it('count as exposed when a folder the sandbox mounts holds them', () => {
    expect(exposedPrivatePath(layout, ['/srv/errand', '/var/lib/errand/errand.db', ''])).toBeNull();
    expect(exposedPrivatePath(layout, ['/srv/errand', '/usr/local/errand/data/errand.db'])).toBe(
      '/usr/local/errand/data/errand.db',
    );
    expect(exposedPrivatePath(layout, ['/opt/node/errand'])).toBe('/opt/node/errand');
    expect(exposedPrivatePath(layout, ['/usrdata/errand'])).toBeNull();
  });
});
