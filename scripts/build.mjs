// Transpiles src/ and adapters/ to dist/ with esbuild (no type-check: that is `npm run typecheck`).
// esbuild is a production dependency, so `npm start` also works after `npm ci --omit=dev`.
// `--outdir=DIR` (relative to the project) builds elsewhere: the tests build once per run into a folder of
// their own, so the processes they start load plain JavaScript instead of compiling src/ each time.
import { readdirSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = process.argv.find((a) => a.startsWith('--outdir='))?.slice('--outdir='.length) || 'dist';

/** Every .ts file under a folder, skipping declaration files. */
function sources(dir) {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
    .map((e) => relative(root, join(e.parentPath, e.name)));
}

for (const dir of ['src', 'adapters']) rmSync(join(root, outdir, dir), { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: [...sources('src'), ...sources('adapters')],
  outdir,
  outbase: '.',
  format: 'esm',
  platform: 'node',
  target: 'node20',
  logLevel: 'warning',
});
