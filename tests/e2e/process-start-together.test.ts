import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
let dir: string;

let outdir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'errand-together-'));
  // Inside the project, as dist/ is, so that node_modules and the migration folders resolve from the build.
  outdir = join('dist-test', `together-${process.pid}`);
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(join(root, outdir), { recursive: true, force: true });
});

/**
 * What `npm start` runs (build, then the entry point), with the build going to `outdir`, console input `/help`
 * piped in and a database of its own. Resolves with the exit code and everything it printed.
 */
function startLikeNpmStart(outdir: string, name: string): Promise<{ code: number | null; output: string }> {
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    ERRAND_CONSOLE: 'on',
    OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
    LOG_LEVEL: 'warn',
    DATABASE_PATH: join(dir, name, 'errand.db'),
  };
  const script = `node scripts/build.mjs --outdir=${outdir} && node --expose-gc --v8-pool-size=1 ${outdir}/src/main.js`;
  const child = spawn('sh', ['-c', script], { cwd: root, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (b: Buffer) => (output += b.toString()));
  child.stderr.on('data', (b: Buffer) => (output += b.toString()));
  child.stdin.end('/help\n');
  return new Promise((done) => child.on('exit', (code) => done({ code, output })));
}

/** Every file under `dir` with its inode: a file rewritten in place, or removed and written again, shows. */
function inodes(dir: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) found.set(join(entry.parentPath, entry.name), statSync(join(entry.parentPath, entry.name)).ino);
  }
  return found;
}

describe('several processes started at once from one checkout', () => {
  it('a build never removes or rewrites a file of the tree an earlier build left, which a running process may still load', async () => {
    const build = (out: string) =>
      promisify(execFile)(process.execPath, ['scripts/build.mjs', `--outdir=${out}`], { cwd: root });
    const out = `${outdir}-inodes`;
    try {
      await build(out);
      // The whole build a process loads from: its per-file tree and the bundled entry's lazily imported chunks.
      const loaded = dirname(realpathSync(join(root, out, 'src')));
      const before = inodes(loaded);
      expect(before.size).toBeGreaterThan(100);
      expect([...before.keys()].some((file) => file.startsWith(join(loaded, 'chunks')))).toBe(true);
      await Promise.all([build(out), build(out), build(out)]);
      const after = inodes(loaded);
      expect([...before].filter(([file, ino]) => after.get(file) !== ino)).toEqual([]);
    } finally {
      rmSync(join(root, out), { recursive: true, force: true });
    }
  }, 60_000);

  it('all come up: a build never replaces the tree another process is loading', async () => {
    // An older build in the old layout (plain folders) that the first build replaces while the others start.
    mkdirSync(join(root, outdir, 'src'), { recursive: true });
    writeFileSync(join(root, outdir, 'src', 'main.js'), 'throw new Error("a stale build was loaded");\n');
    const runs = await Promise.all(['a', 'b', 'c'].map((name) => startLikeNpmStart(outdir, name)));
    for (const run of runs) {
      expect(run.output).not.toMatch(/Cannot find module|ERR_MODULE_NOT_FOUND|stale build/);
      expect(run.output).toContain('/tasks');
      expect(run.code).toBe(0);
    }
    // Started again with the sources unchanged: the build is reused, and it still starts.
    const again = await startLikeNpmStart(outdir, 'd');
    expect(again.output).toContain('/tasks');
  }, 60_000);
});
