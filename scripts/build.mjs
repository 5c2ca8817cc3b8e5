// Transpiles src/ and adapters/ to dist/ with esbuild (no type-check: that is `npm run typecheck`).
// esbuild is a production dependency, so `npm start` also works after `npm ci --omit=dev`.
// `--outdir=DIR` (relative to the project) builds elsewhere: the tests build once per run into a folder of
// their own, so the processes they start load plain JavaScript instead of compiling src/ each time.
//
// Several processes may be started at once from one checkout (README "Running several processes"), each
// running this first. So a build never touches a tree a process may be loading: it goes into a fresh folder
// named by the hash of what it is built from (`DIR/builds/<hash>/`), which is renamed into place whole, and
// `DIR/src` and `DIR/adapters` are symbolic links switched to it atomically (rename over the old link). A
// process loads its modules by their real path, so one that started from an older build keeps loading that
// build's files, lazily imported ones included. When the sources have not changed the build is reused.
import { createHash } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
} from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, version as esbuildVersion } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = process.argv.find((a) => a.startsWith('--outdir='))?.slice('--outdir='.length) || 'dist';
const out = resolve(root, outdir);
const TREES = ['src', 'adapters'];
/** Older builds than this, other than the one in use, are removed: a process started from one has long loaded it. */
const KEEP_OLD_BUILDS_MS = 7 * 24 * 3600_000;

/** Every .ts file under a folder, skipping declaration files, in a stable order. */
function sources(dir) {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
    .map((e) => relative(root, join(e.parentPath, e.name)))
    .sort();
}

/** What the build is made from: every source file's path and bytes, this script and esbuild's version. */
function buildHash(files) {
  const hash = createHash('sha256')
    .update(`esbuild ${esbuildVersion}\n`)
    .update(readFileSync(fileURLToPath(import.meta.url)));
  for (const file of files) hash.update(`\n${file}\n`).update(readFileSync(join(root, file)));
  return hash.digest('hex').slice(0, 16);
}

/** Points `DIR/<tree>` at the build, replacing whatever is there in one rename (a real folder from an older layout is moved aside first). */
function switchLink(tree, target) {
  const link = join(out, tree);
  const temp = join(out, `.${tree}.${process.pid}.${Date.now()}`);
  symlinkSync(target, temp, 'dir');
  let existing = null;
  try {
    existing = lstatSync(link);
  } catch {}
  if (existing && !existing.isSymbolicLink())
    renameSync(link, join(out, 'builds', `old-${tree}-${process.pid}-${Date.now()}`));
  renameSync(temp, link);
}

/** Removes builds nobody can be loading any more: not the current one, and untouched for a week. */
function pruneOldBuilds(current) {
  const dir = join(out, 'builds');
  for (const name of readdirSync(dir)) {
    if (name === current) continue;
    const path = join(dir, name);
    if (Date.now() - statSync(path).mtimeMs > KEEP_OLD_BUILDS_MS) rmSync(path, { recursive: true, force: true });
  }
}

/** What both steps of a build share: ES modules for Node.js 20, paths kept relative to the project. */
const NODE_ESM = {
  absWorkingDir: root,
  outbase: '.',
  format: 'esm',
  platform: 'node',
  target: 'node20',
  logLevel: 'warning',
};

/**
 * Every source file is transpiled to its own module; `src/main.js` is then replaced by the entry point bundled
 * with everything it imports, node_modules included (lazily imported parts, such as each platform's adapter, in chunks of their own under `chunks/`): a process
 * starts in about half the CPU time of loading some 3 000 module files one by one (526 of them Errand's), which
 * is most of what starting a process costs. The per-file tree stays beside it, for scripts that import one
 * module (scripts/check-production-install.sh). Left out of the bundle, and loaded from node_modules at run
 * time: packages with native code (better-sqlite3, koffi) and the optional native helpers of ws and discord.js.
 * CommonJS code in the bundle that calls `require` at run time gets one made for the bundle's own file.
 */
const ENTRY_BUNDLE = {
  entryPoints: ['src/main.ts'],
  allowOverwrite: true,
  bundle: true,
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  external: ['better-sqlite3', 'koffi', 'bufferutil', 'utf-8-validate', 'zlib-sync', 'erlpack', 'pg-native'],
  banner: {
    js: "import { createRequire as __errandRequire } from 'node:module'; const require = __errandRequire(import.meta.url);",
  },
};

const files = TREES.flatMap(sources);
const hash = buildHash(files);
const final = join(out, 'builds', hash);
mkdirSync(join(out, 'builds'), { recursive: true });
if (!existsSync(join(final, 'src', 'main.js'))) {
  const temp = join(out, 'builds', `.${hash}.${process.pid}.${Date.now()}`);
  await build({ ...NODE_ESM, entryPoints: files, outdir: temp });
  await build({ ...NODE_ESM, ...ENTRY_BUNDLE, outdir: temp });
  try {
    renameSync(temp, final);
  } catch (err) {
    // Another process started at the same moment built the same sources first: theirs is identical.
    rmSync(temp, { recursive: true, force: true });
    if (!existsSync(join(final, 'src', 'main.js'))) throw err;
  }
} else {
  const now = new Date();
  utimesSync(final, now, now);
}
for (const tree of TREES) switchLink(tree, join('builds', hash, tree));
pruneOldBuilds(hash);
