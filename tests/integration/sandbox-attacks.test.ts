import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { errandFileEnv } from '../fixtures/errand-file.js';
import { waitFor } from '../fakes/wait-for.js';
import { startHarness, type Harness } from './harness.js';
import { runCode, sandboxProcesses, scriptByText } from './sandbox-kit.js';

/*
 * The sandbox attacked through the real tool path: the fake model calls run_code, Errand runs the code in a real
 * bubblewrap sandbox, and the code tries to reach what it must not. These run in CI (.ci/run installs bubblewrap
 * and python3); without a sandbox they fail, never skip.
 */

const SECRET = `errand-fake-secret-${process.pid}-${Date.now()}`;
let h: Harness;
let server: Server;
let port = 0;
let connections = 0;
const dotEnvDir = mkdtempSync(join(tmpdir(), 'errand-dotenv-'));

beforeAll(async () => {
  process.env.ERRAND_SANDBOX_TEST_SECRET = SECRET;
  writeFileSync(join(dotEnvDir, '.env'), `OPENAI_API_KEY=${SECRET}\n`);
  server = createServer((s) => {
    connections++;
    s.end('hello');
  });
  await new Promise<void>((r) => server.listen(0, '0.0.0.0', () => r()));
  port = (server.address() as { port: number }).port;
});
afterAll(async () => {
  delete process.env.ERRAND_SANDBOX_TEST_SECRET;
  await new Promise<void>((r) => server.close(() => r()));
});
afterEach(async () => h.close());

const limits = { sandbox: { memoryMb: 256, maxProcesses: 32, maxSeconds: 30 } };

async function start() {
  h = await startHarness({ ...errandFileEnv(limits), OPENAI_API_KEY: SECRET });
  return scriptByText(h);
}

describe('the sandbox, attacked', () => {
  it("shows the code none of Errand's environment, files or processes", async () => {
    const calls = await start();
    const where = h.adapter.thread('C1', 'T-secrets');
    const paths = [
      h.dbPath,
      h.config.file.path!,
      join(dotEnvDir, '.env'),
      process.cwd(),
      '/root',
      '/home',
      '/work',
      tmpdir() === '/tmp' ? '/tmp/errand-it-x' : tmpdir(),
    ];
    const code = `
import os, json, glob
seen = dict(os.environ)
procs = {}
for d in glob.glob('/proc/[0-9]*'):
    try:
        procs[d] = [open(d + '/cmdline', 'rb').read().decode(errors='replace'), open(d + '/environ', 'rb').read().decode(errors='replace'), open(d + '/comm').read().strip()]
    except Exception as e:
        procs[d] = ['', '', 'unreadable']
print(json.dumps({'env': seen, 'procs': procs, 'exists': {p: os.path.exists(p) for p in ${JSON.stringify(paths)}}, 'root': sorted(os.listdir('/')), 'etc': sorted(os.listdir('/etc'))}))
`;
    const r = (await runCode(h, calls, where, code)).result();
    expect(r.ok).toBe(true);
    expect(r.stdout).not.toContain(SECRET);
    expect(r.stdout).not.toContain('test-key');
    const seen = JSON.parse(r.stdout) as {
      env: Record<string, string>;
      procs: Record<string, string[]>;
      exists: Record<string, boolean>;
      root: string[];
      etc: string[];
    };
    expect(Object.keys(seen.env).sort()).toEqual(
      [
        'HOME',
        'LANG',
        'MPLBACKEND',
        'MPLCONFIGDIR',
        'OLDPWD',
        'PATH',
        'PWD',
        'SHLVL',
        'TMPDIR',
        'XDG_CACHE_HOME',
        '_',
      ].sort(),
    );
    expect(Object.values(seen.exists)).toEqual(paths.map(() => false));
    expect(seen.root).toEqual(['bin', 'dev', 'etc', 'lib', 'lib64', 'proc', 'run', 'sbin', 'tmp', 'usr', 'workspace']);
    expect(seen.etc).not.toContain('shadow');
    // Its own processes only: bwrap's init, the shell that runs the code, and python.
    expect(new Set(Object.values(seen.procs).map((p) => p[2]))).toEqual(new Set(['bwrap', 'bash', 'python3']));
    expect(Object.keys(seen.procs).length).toBeLessThanOrEqual(4);
    expect(Object.keys(seen.procs)).not.toContain(`/proc/${process.pid}`);
  });

  it("keeps one conversation's workspace out of another's", async () => {
    const calls = await start();
    const a = h.adapter.thread('C1', 'T-a');
    const b = h.adapter.thread('C1', 'T-b');
    expect((await runCode(h, calls, a, `open('private.txt', 'w').write('${SECRET}')`)).result().ok).toBe(true);
    // The secret is put together at run time, so that the code file itself does not hold it.
    const [head, tail] = [SECRET.slice(0, 8), SECRET.slice(8)];
    const search = `import subprocess, os; s = '${head}' + '${tail}'; print(subprocess.run(['grep', '-rl', s, '/workspace', '/tmp', '/run', '/etc', '/dev/shm'], capture_output=True, text=True).stdout or 'nothing'); print(sorted(os.listdir('/workspace')))`;
    const r = (await runCode(h, calls, b, search)).result();
    expect(r.stdout).toBe("nothing\n['in', 'out']\n");
    expect((await runCode(h, calls, a, `print(open('private.txt').read())`)).result().stdout).toBe(`${SECRET}\n`);
  });

  it('refuses the network: a server on this host receives nothing', async () => {
    const calls = await start();
    const addresses = [
      '127.0.0.1',
      ...Object.values(networkInterfaces()).flatMap((l) =>
        (l ?? []).filter((i) => i.family === 'IPv4' && !i.internal).map((i) => i.address),
      ),
    ];
    const code = `
import socket
for host in ${JSON.stringify(addresses)}:
    try:
        socket.create_connection((host, ${port}), timeout=3)
        print('reached', host)
    except OSError as e:
        print('refused', host, e.errno)
try:
    socket.getaddrinfo('example.com', 443)
    print('resolved')
except OSError:
    print('no dns')
`;
    const r = (await runCode(h, calls, h.adapter.thread('C1', 'T-net'), code)).result();
    expect(r.stdout).not.toContain('reached');
    expect(r.stdout).toContain('no dns');
    expect(r.stdout.match(/^refused/gm)).toHaveLength(addresses.length);
    expect(connections).toBe(0);
  });

  it('with sandbox.network, reaches only the listed host through the proxy: the others receive nothing', async () => {
    let listedHits = 0;
    const open = new Set<Socket>();
    const listed = createServer((c) => {
      listedHits++;
      open.add(c);
      c.on('close', () => open.delete(c));
      c.resume();
      c.end('HTTP/1.0 200 OK\r\n\r\nfrom the listed host');
    });
    await new Promise<void>((r) => listed.listen(0, '127.0.0.1', () => r()));
    const listedPort = (listed.address() as { port: number }).port;
    try {
      h = await startHarness(errandFileEnv({ sandbox: { network: [`127.0.0.1:${listedPort}`], approval: 'never' } }));
      const calls = scriptByText(h);
      const code = `
import urllib.request, socket
print(urllib.request.urlopen('http://127.0.0.1:${listedPort}/', timeout=5).read().decode())
try:
    urllib.request.urlopen('http://127.0.0.1:${port}/', timeout=5)
    print('reached ${port}')
except Exception as e:
    print('refused ${port}', e)
try:
    socket.create_connection(('127.0.0.1', ${port}), timeout=3)
    print('direct reached')
except OSError:
    print('direct refused')
`;
      const r = (await runCode(h, calls, h.adapter.thread('C1', 'T-allow'), code)).result();
      expect(r.stdout).toContain('from the listed host');
      expect(r.stdout).toContain(`refused ${port} HTTP Error 403`);
      expect(r.stdout).toContain('direct refused');
      expect(r.network_refused).toEqual([`127.0.0.1:${port}`]);
      expect(listedHits).toBe(1);
      expect(connections).toBe(0);
      await waitFor(() => open.size === 0, 2_000, 'the proxy to have closed its connection to the listed host');
    } finally {
      for (const c of open) c.destroy();
      await new Promise<void>((r) => listed.close(() => r()));
    }
  });

  it('contains a fork bomb while the bot keeps answering, and its time limit kills every process of it', async () => {
    const calls = await start();
    const bomb = h.adapter.thread('C1', 'T-bomb');
    // Every process forks for ever: the bomb stays at its limit until it is killed.
    const forever =
      'import os, time\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        time.sleep(0.01)';
    const started = await runCode(h, calls, bomb, forever, { timeoutSeconds: 5, wait: false });
    await waitFor(() => sandboxProcesses().length > 20, 10_000, 'the fork bomb to grow');
    // Another conversation is answered meanwhile.
    const other = h.adapter.thread('C1', 'T-other');
    await h.adapter.say(other, 'are you there?', { userId: 'U2' });
    await waitFor(
      () => h.adapter.textsIn(other).includes('answer: are you there?'),
      10_000,
      'the answer in the other conversation',
    );
    // Never more than its limit (32 processes and threads), plus bwrap outside the namespace and its init.
    const peak = Math.max(
      ...Array.from({ length: 20 }, () => sandboxProcesses().filter((p) => p.comm === 'python3').length),
    );
    expect(peak).toBeLessThanOrEqual(32);
    h.clock.advance(5_000);
    await waitFor(
      () => h.adapter.textsIn(bomb).includes(`done: ${started.text}`),
      10_000,
      'the run to go on after the kill',
    );
    expect(started.result()).toMatchObject({ ok: false, exit_code: null });
    expect(started.result().error).toMatch(/time limit of 5 s and was killed/);
    await waitFor(() => sandboxProcesses().length === 0, 2_000, 'every process of the bomb to be gone');
  });

  it('contains a memory hog: allocations fail past sandbox.memoryMb and the run goes on', async () => {
    const calls = await start();
    const code = `
chunks = []
try:
    while True:
        chunks.append(bytearray(16 * 1024 * 1024))
except MemoryError:
    print('stopped at', len(chunks) * 16, 'MB')
`;
    const r = (await runCode(h, calls, h.adapter.thread('C1', 'T-mem'), code)).result();
    expect(r.ok).toBe(true);
    const mb = Number(/stopped at (\d+) MB/.exec(r.stdout)?.[1]);
    expect(mb).toBeGreaterThan(64);
    expect(mb).toBeLessThan(256);
    const js = (
      await runCode(
        h,
        calls,
        h.adapter.thread('C1', 'T-mem'),
        'const a = []; for (;;) a.push(Buffer.alloc(16 * 1024 * 1024, 1));',
        { language: 'javascript' },
      )
    ).result();
    expect(js.ok).toBe(false);
    expect(js.exit_code).not.toBe(0);
  });

  it('stops an endless loop on "stop" within 2 s, with no process left on the host', async () => {
    const calls = await start();
    const where = h.adapter.thread('C1', 'T-loop');
    await runCode(h, calls, where, 'while True:\n    pass', { wait: false });
    await waitFor(() => sandboxProcesses().some((p) => p.comm === 'python3'), 10_000, 'the loop to run');
    await h.adapter.say(where, 'stop', { userId: 'U1' });
    await waitFor(() => sandboxProcesses().length === 0, 2_000, 'the sandbox to be gone');
    await h.app.coordinator.idle();
  });
});
