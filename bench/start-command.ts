import { readFileSync } from 'node:fs';

/** How `npm start` launches node: environment assignments and node flags before `dist/src/main.js`. */
export interface StartCommand {
  readonly env: Record<string, string>;
  readonly flags: string[];
}

/**
 * Reads the `start` script of package.json, so benchmarks run Errand with the same node flags and
 * environment as production (`A=1 node --flag dist/src/main.js`). `BENCH_START_FLAGS` adds flags
 * for experiments.
 */
export function startCommand(): StartCommand {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    scripts: { start: string };
  };
  const launch =
    pkg.scripts.start
      .split('&&')
      .map((s) => s.trim())
      .find((s) => s.includes('dist/src/main.js')) ?? '';
  const words = launch.split(/\s+/).filter((w) => w !== '');
  const env: Record<string, string> = {};
  const flags: string[] = [];
  for (const w of words) {
    if (w === 'dist/src/main.js') break;
    const assignment = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(w);
    if (assignment) env[assignment[1]!] = assignment[2]!;
    else if (w.startsWith('--')) flags.push(w);
  }
  flags.push(...(process.env.BENCH_START_FLAGS ?? '').split(' ').filter((f) => f !== ''));
  return { env, flags };
}
