import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { silentLogger } from '../../src/logger.js';
import { allowedTarget, isForbiddenAddress, parseAllowlist, requestTarget } from '../../src/sandbox/egress-proxy.js';
import { normalWorkspacePath, packWorkspace, unpackWorkspace } from '../../src/sandbox/workspace-archive.js';
import { createWorkspaceRetention } from '../../src/sandbox/workspace-retention.js';
import { createWorkspaces, inputFileName, suffixedName } from '../../src/sandbox/workspace.js';
import { createSqliteStore } from '../../src/composition/sqlite-store.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../src/db/client.js';

const DAY = 24 * 60 * 60_000;

function store(clock = new FakeClock()) {
  const db = openDatabase(join(mkdtempSync(join(tmpdir(), 'errand-ws-')), 'errand.db'));
  return { clock, store: createSqliteStore(db, clock, { ownsDb: true }) };
}

describe('workspace paths and archives', () => {
  it('accepts clean relative paths only', () => {
    expect(normalWorkspacePath('./in/data.csv')).toBe('in/data.csv');
    expect(normalWorkspacePath('out/sub/chart.png')).toBe('out/sub/chart.png');
    for (const bad of ['../etc/passwd', '/etc/passwd', 'in/../../x', './', '', 'a//b'])
      expect(normalWorkspacePath(bad)).toBeNull();
  });

  it('round-trips files through the archive the sandbox unpacks', async () => {
    const files = [
      { path: 'in/data.csv', bytes: Buffer.from('a,b\n'), mtime: 1_700_000_000_000 },
      { path: `deep/${'x'.repeat(150)}/name.bin`, bytes: Buffer.from([0, 1, 2, 255]), mtime: 1_700_000_001_000 },
    ];
    const back = await unpackWorkspace(await packWorkspace(files));
    expect(back).toEqual(files);
  });
});

describe('attachments landing in in/', () => {
  it('keep their names, get a numeric suffix on a clash, and lose any folder part', async () => {
    const { store: s } = store();
    const ws = createWorkspaces({ store: s.workspaces, quotaMb: 1, clock: systemClock });
    expect(await ws.addInput('c1', 'data.csv', Buffer.from('1'))).toEqual({ ok: true, path: 'in/data.csv' });
    expect(await ws.addInput('c1', 'data.csv', Buffer.from('2'))).toEqual({ ok: true, path: 'in/data-1.csv' });
    expect(await ws.addInput('c1', 'data.csv', Buffer.from('3'))).toEqual({ ok: true, path: 'in/data-2.csv' });
    expect(await ws.addInput('c1', '../../etc/passwd', Buffer.from('4'))).toEqual({ ok: true, path: 'in/passwd' });
    expect(await ws.addInput('c2', 'data.csv', Buffer.from('5'))).toEqual({ ok: true, path: 'in/data.csv' });
    expect((await s.workspaces.files('c1')).map((f) => [f.path, f.bytes.toString()])).toEqual([
      ['in/data-1.csv', '2'],
      ['in/data-2.csv', '3'],
      ['in/data.csv', '1'],
      ['in/passwd', '4'],
    ]);
    expect(suffixedName('notes', 2)).toBe('notes-2');
    expect(suffixedName('.env', 1)).toBe('.env-1');
    expect(inputFileName('\u0000')).toBe('attachment');
  });

  it('are refused with the reason when the workspace quota would be passed', async () => {
    const { store: s } = store();
    const ws = createWorkspaces({ store: s.workspaces, quotaMb: 1, clock: systemClock });
    expect(await ws.addInput('c1', 'a.bin', Buffer.alloc(700_000))).toMatchObject({ ok: true });
    const r = await ws.addInput('c1', 'b.bin', Buffer.alloc(700_000));
    expect(r).toMatchObject({ ok: false });
    expect(!r.ok && r.reason).toMatch(/b\.bin .* over its quota of 1 MB \(sandbox\.workspaceMb\)/);
  });
});

describe('a call ending', () => {
  it('writes new and changed files, deletes missing ones, and moves out/ to posted/', async () => {
    const { store: s, clock } = store();
    const ws = createWorkspaces({ store: s.workspaces, quotaMb: 10, clock });
    await ws.addInput('c1', 'keep.txt', Buffer.from('same'));
    await ws.addInput('c1', 'gone.txt', Buffer.from('x'));
    const before = await ws.checkout('c1');
    const after = [
      { path: 'in/keep.txt', bytes: Buffer.from('same'), mtime: 0 },
      { path: 'notes.md', bytes: Buffer.from('new'), mtime: 0 },
      { path: 'out/b.png', bytes: Buffer.from('png'), mtime: 0 },
      { path: 'out/a.csv', bytes: Buffer.from('csv'), mtime: 0 },
    ];
    const r = await ws.commit('c1', before, after);
    expect(r).toMatchObject({
      ok: true,
      outputs: [
        { name: 'a.csv', mimeType: 'text/csv' },
        { name: 'b.png', mimeType: 'image/png' },
      ],
    });
    expect((await s.workspaces.entries('c1')).map((e) => e.path)).toEqual([
      'in/keep.txt',
      'notes.md',
      'posted/a.csv',
      'posted/b.png',
    ]);
  });
});

describe('retention', () => {
  it('deletes a workspace retentionDays after its last use, on the clock, and keeps one used since', async () => {
    const { store: s, clock } = store();
    const ws = createWorkspaces({ store: s.workspaces, quotaMb: 10, clock });
    await ws.addInput('old', 'a.txt', Buffer.from('a'));
    clock.advance(3 * DAY);
    await ws.addInput('recent', 'b.txt', Buffer.from('b'));
    const retention = createWorkspaceRetention({
      store: s.workspaces,
      clock,
      logger: silentLogger(),
      retentionDays: 7,
      everyMs: DAY,
    });
    retention.start();
    // A sweep re-arms its timer once it has deleted what it found: one day at a time, each sweep done before the next.
    const days = async (n: number) => {
      for (let i = 0; i < n; i++) {
        clock.advance(DAY);
        await expect.poll(() => clock.pendingTimers()).toBe(1);
      }
    };
    await days(4);
    expect((await s.workspaces.entries('old')).length).toBe(1);
    await days(1);
    expect((await s.workspaces.entries('old')).length).toBe(0);
    expect((await s.workspaces.entries('recent')).map((e) => e.path)).toEqual(['in/b.txt']);
    await days(3);
    expect((await s.workspaces.entries('recent')).length).toBe(0);
    retention.stop();
    expect(clock.pendingTimers()).toBe(0);
  });
});

describe('the egress allowlist', () => {
  const list = parseAllowlist(['pypi.org', 'files.pythonhosted.org:443', '10.0.0.5:8080']);

  it('lets through only listed hosts and ports (a bare name: 443 and 80)', () => {
    expect(allowedTarget(list, 'PyPI.org', 443)).not.toBeNull();
    expect(allowedTarget(list, 'pypi.org', 80)).not.toBeNull();
    expect(allowedTarget(list, 'pypi.org', 22)).toBeNull();
    expect(allowedTarget(list, 'files.pythonhosted.org', 80)).toBeNull();
    expect(allowedTarget(list, '10.0.0.5', 8080)).toMatchObject({ literal: true });
    expect(allowedTarget(list, 'evil.pypi.org', 443)).toBeNull();
  });

  it('reads CONNECT and absolute http:// request lines, nothing else', () => {
    expect(requestTarget('CONNECT pypi.org:443 HTTP/1.1')).toEqual({
      host: 'pypi.org',
      port: 443,
      tunnel: true,
      path: '',
    });
    expect(requestTarget('GET http://pypi.org/simple/?q=1 HTTP/1.1')).toEqual({
      host: 'pypi.org',
      port: 80,
      tunnel: false,
      path: '/simple/?q=1',
    });
    expect(requestTarget('GET /relative HTTP/1.1')).toBeNull();
    expect(requestTarget('GET ftp://x/ HTTP/1.1')).toBeNull();
  });

  it('never lets a listed name lead to loopback or link-local addresses', () => {
    for (const a of ['127.0.0.1', '127.8.0.1', '169.254.169.254', '0.0.0.0', '::1', 'fe80::1', '::ffff:127.0.0.1'])
      expect(isForbiddenAddress(a)).toBe(true);
    for (const a of ['151.101.0.223', '10.0.0.5', '2a04:4e42::223']) expect(isForbiddenAddress(a)).toBe(false);
  });
});
