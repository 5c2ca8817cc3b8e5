import { performance } from 'node:perf_hooks';
import type { Benchmark, BenchFigure } from './benchmark.js';

/** Every benchmark module; each exports `benchmark`. Loaded lazily so one can run alone. */
const MODULES: Record<string, () => Promise<{ benchmark: Benchmark }>> = {
  heartbeat: () => import('./heartbeat.js'),
  dispatcher: () => import('./dispatcher.js'),
  schedules: () => import('./schedules.js'),
  discord: () => import('./discord.js'),
  slack: () => import('./slack.js'),
  'idle-memory': () => import('./idle-memory.js'),
  'context-build': () => import('./context-build.js'),
  mcp: () => import('./mcp.js'),
  'access-check': () => import('./access-check.js'),
  stream: () => import('./stream.js'),
  scaleout: () => import('./scaleout.js'),
  'pg-overhead': () => import('./pg-overhead.js'),
  'pg-idle-backend': () => import('./pg-idle-backend.js'),
  oauth: () => import('./oauth.js'),
  memory: () => import('./memory.js'),
  tracing: () => import('./tracing.js'),
  skills: () => import('./skills.js'),
  'web-console': () => import('./web-console.js'),
  sandbox: () => import('./sandbox.js'),
  'file-posts': () => import('./file-posts.js'),
};

function format(f: BenchFigure): string {
  const v = Number.isInteger(f.value) ? String(f.value) : f.value.toFixed(f.value < 10 ? 3 : 1);
  return `${f.name}: ${v} ${f.unit}${f.detail ? `\n  ${f.detail}` : ''}`;
}

async function main(): Promise<void> {
  const wanted = process.argv.slice(2).filter((a) => a !== '--');
  let ran = 0;
  for (const [file, load] of Object.entries(MODULES)) {
    const { benchmark } = await load();
    if (wanted.length > 0 && !wanted.some((w) => w === benchmark.name || benchmark.figures.includes(w) || w === file))
      continue;
    ran++;
    const started = performance.now();
    const figures = await benchmark.run();
    process.stderr.write(`# ${benchmark.name}: ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
    for (const f of figures) {
      if (wanted.length === 0 || wanted.includes(f.name) || wanted.includes(benchmark.name) || wanted.includes(file)) {
        process.stdout.write(`${format(f)}\n`);
      }
    }
  }
  if (ran === 0) {
    process.stderr.write(`No benchmark named ${wanted.join(', ')}. Known: ${Object.keys(MODULES).join(', ')}\n`);
    process.exit(2);
  }
}

await main();
