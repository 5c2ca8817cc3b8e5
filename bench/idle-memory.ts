import { execFileSync, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startFakeOpenAI } from '../tests/fakes/fake-openai.js';
import type { Benchmark } from './benchmark.js';

const MB = 1024 * 1024;

/**
 * RSS of an Errand process (compiled JS, as `npm start` runs it) after 10 000 conversations went
 * idle, read after 30 s of quiet.
 */
export const benchmark: Benchmark = {
  name: 'idle-memory',
  figures: ['idle_rss_mb'],
  async run() {
    const model = await startFakeOpenAI();
    try {
      const root = fileURLToPath(new URL('..', import.meta.url));
      execFileSync(process.execPath, [fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url)), '-p', 'tsconfig.bench.json'], { cwd: root, stdio: 'inherit' });
      const child = spawn(process.execPath, [fileURLToPath(new URL('../dist-bench/bench/idle-memory-child.js', import.meta.url))], {
        env: { ...process.env, MODEL_URL: model.baseUrl },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      if (code !== 0) throw new Error(`idle-memory child exited with ${code}`);
      const r = JSON.parse(out.trim().split('\n').at(-1)!) as { baseline: number; afterLoad: number; idle: number; answered: number; heapUsed: number; heapTotal: number };
      return [
        {
          name: 'idle_rss_mb',
          value: r.idle / MB,
          unit: 'MB',
          detail: `after ${r.answered} conversations answered and 30 s of quiet (target < 100); at start ${(r.baseline / MB).toFixed(1)} MB, right after the load ${(r.afterLoad / MB).toFixed(1)} MB; JS heap at idle ${(r.heapUsed / MB).toFixed(1)} of ${(r.heapTotal / MB).toFixed(1)} MB`,
        },
      ];
    } finally {
      await model.close();
    }
  },
};
