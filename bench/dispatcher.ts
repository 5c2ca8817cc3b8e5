import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createOpenAiClient } from '../src/agent/llm-client.js';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { startFakeOpenAI } from '../tests/fakes/fake-openai.js';
import { MemoryAdapter } from '../tests/fakes/memory-adapter.js';
import type { Benchmark } from './benchmark.js';
import { median } from './overhead-figures.js';
import { nextPost } from './next-post.js';

const WARMUP = 100;
const MESSAGES = 600;

/**
 * Errand's pipeline (dedupe → persist → claim → context → model → persist → post → settle) against
 * a bare "receive → call model → post" loop with no persistence, both with the real openai SDK on the
 * same zero-latency fake model and an in-memory adapter, one message at a time, in the same run.
 */
export const benchmark: Benchmark = {
  name: 'dispatcher',
  figures: ['dispatcher_overhead_ratio'],
  async run() {
    const model = await startFakeOpenAI();
    const dir = mkdtempSync(join(tmpdir(), 'errand-bench-disp-'));
    try {
      const config = loadConfig({
        OPENAI_BASE_URL: model.baseUrl,
        OPENAI_API_KEY: 'bench',
        DATABASE_PATH: join(dir, 'errand.db'),
      });

      const bareAdapter = new MemoryAdapter();
      const llm = createOpenAiClient({ apiKey: 'bench', baseUrl: model.baseUrl, model: 'bench', timeoutMs: 10_000 });
      const bare: number[] = [];
      for (let i = 0; i < WARMUP + MESSAGES; i++) {
        const t0 = performance.now();
        const r = await llm.complete({
          messages: [
            { role: 'system', content: 'sys' },
            { role: 'user', content: `hello ${i}` },
          ],
          tools: [],
          signal: new AbortController().signal,
        });
        await bareAdapter.postMessage(bareAdapter.thread('C1', `B${i}`), { text: r.text ?? '' });
        if (i >= WARMUP) bare.push(performance.now() - t0);
      }

      const adapter = new MemoryAdapter();
      const app = await createApp({ config, adapters: [adapter] });
      await app.start();
      const errand: number[] = [];
      for (let i = 0; i < WARMUP + MESSAGES; i++) {
        const posted = nextPost(adapter);
        const t0 = performance.now();
        await adapter.say(adapter.thread('C1', `E${i}`), `hello ${i}`);
        await posted;
        if (i >= WARMUP) errand.push(performance.now() - t0);
        await app.coordinator.idle();
      }
      await app.stop();

      const b = median(bare) * 1000;
      const e = median(errand) * 1000;
      return [
        {
          name: 'dispatcher_overhead_ratio',
          value: e / b,
          unit: 'x',
          detail: `median per message: Errand ${e.toFixed(0)} µs vs bare loop ${b.toFixed(0)} µs (+${(e - b).toFixed(0)} µs), ${MESSAGES} messages each; in one process, no platform on either side and nothing stored by the loop, so this is Errand's own pipeline cost: the 1.3× targets against a bare bot on the platforms' fakes are slack_* and discord_*`,
        },
      ];
    } finally {
      await model.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
