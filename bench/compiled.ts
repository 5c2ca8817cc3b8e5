import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

let compiled = false;

/**
 * Compiles Errand and the bench's bot entry points with tsc into dist-bench/ (once per bench run) and
 * returns the path of `file` there: bots run as compiled JS, as `npm start` runs Errand, so no
 * TypeScript loader or source-map support skews their CPU or memory.
 */
export function compiledBenchFile(file: string): string {
  if (!compiled) {
    const root = fileURLToPath(new URL('..', import.meta.url));
    execFileSync(
      process.execPath,
      [fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url)), '-p', 'tsconfig.bench.json'],
      { cwd: root, stdio: 'inherit' },
    );
    compiled = true;
  }
  return fileURLToPath(new URL(`../dist-bench/${file}`, import.meta.url));
}
