import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { silentLogger } from '../src/logger.js';
import { loadTracing } from '../src/telemetry/load-tracing.js';
import { noopTracing, type Tracing } from '../src/telemetry/tracing.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { startFakeOpenAI } from '../tests/fakes/fake-openai.js';
import { MemoryAdapter } from '../tests/fakes/memory-adapter.js';
import type { Benchmark } from './benchmark.js';
import { median } from './overhead-figures.js';
import { nextPost } from './next-post.js';

const WARMUP = 100;
/** Messages per condition, in alternating blocks so drift on a shared machine hits both alike. */
const MESSAGES = 800;
const BLOCK = 50;

/**
 * A collector in a process of its own, as a real one is (its work on the spans never runs on Errand's event loop):
 * it reads each OTLP/HTTP export, counts it and answers 200. Resolves with its endpoint and the export count.
 */
async function startCollectorProcess(): Promise<{ endpoint: string; exports: () => Promise<number>; child: ChildProcess }> {
  const script = `
    let n = 0;
    const s = require('node:http').createServer((req, res) => {
      if (req.url === '/count') return res.end(String(n));
      req.on('data', () => {}).on('end', () => { n++; res.writeHead(200, { 'content-type': 'application/json' }).end('{}'); });
    });
    s.listen(0, '127.0.0.1', () => process.stdout.write(String(s.address().port) + '\\n'));`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [chunk] = (await once(child.stdout!, 'data')) as [Buffer];
  const endpoint = `http://127.0.0.1:${chunk.toString().trim()}`;
  return { endpoint, child, exports: async () => Number(await (await fetch(`${endpoint}/count`)).text()) };
}



/**
 * Errand's message pipeline with traces on (every run, model request and delivery a span, sent in batches to a
 * local OTLP/HTTP collector) against the same pipeline with traces off, on the same zero-latency fake model and
 * an in-memory adapter, one message at a time: the cost of tracing per message. One app serves both conditions,
 * its tracing switched block by block (two apps differ by several per cent between themselves on a busy machine).
 */
export const benchmark: Benchmark = {
  name: 'tracing',
  figures: ['tracing_overhead_ratio'],
  async run() {
    const model = await startFakeOpenAI();
    const collector = await startCollectorProcess();
    const dir = mkdtempSync(join(tmpdir(), 'errand-bench-tracing-'));
    const traced = await loadTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint }, silentLogger());
    try {
      // One app, its tracing switched between off and on block by block: the two conditions differ in nothing else.
      let tracingOn = false;
      const switched: Tracing = {
        enabled: true,
        get captureContent() {
          return tracingOn && traced.captureContent;
        },
        span: (name, options, fn) => (tracingOn ? traced.span(name, options, fn) : noopTracing.span(name, options, fn)),
        currentSpan: () => (tracingOn ? traced.currentSpan() : noopTracing.currentSpan()),
        injectHeaders: (headers) => (tracingOn ? traced.injectHeaders(headers) : undefined),
        shutdown: () => traced.shutdown(),
      };
      Object.defineProperty(switched, 'enabled', { get: () => tracingOn });
      const config = loadConfig({ OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'bench', DATABASE_PATH: join(dir, 'errand.db') });
      const adapter = new MemoryAdapter();
      // Built with tracing on, so the model client and tools are wrapped; each block then switches it.
      tracingOn = true;
      const app = await createApp({ config, adapters: [adapter], tracing: switched });
      await app.start();
      let n = 0;
      const message = async (): Promise<number> => {
        const i = n++;
        const posted = nextPost(adapter);
        const t0 = performance.now();
        await adapter.say(adapter.thread('C1', `M${i}`), `hello ${i}`);
        await posted;
        const ms = performance.now() - t0;
        await app.coordinator.idle();
        return ms;
      };
      const off = { message: async () => ((tracingOn = false), message()) };
      const on = { message: async () => ((tracingOn = true), message()) };
      for (let i = 0; i < WARMUP; i++) {
        await off.message();
        await on.message();
      }
      const offMs: number[] = [];
      const onMs: number[] = [];
      const cpu = { off: 0, on: 0 };
      // Which condition goes first alternates too, so neither always runs after the other's garbage.
      for (let done = 0, first = true; done < MESSAGES; done += BLOCK, first = !first) {
        for (const [which, app, into] of first ? ([['off', off, offMs], ['on', on, onMs]] as const) : ([['on', on, onMs], ['off', off, offMs]] as const)) {
          const before = process.cpuUsage();
          for (let i = 0; i < BLOCK; i++) into.push(await app.message());
          const used = process.cpuUsage(before);
          cpu[which] += used.user + used.system;
        }
      }
      await app.stop();
      await traced.shutdown();
      const o = median(offMs) * 1000;
      const t = median(onMs) * 1000;
      return [
        {
          name: 'tracing_overhead_ratio',
          value: t / o,
          unit: 'x',
          detail: `median per message: traces on ${t.toFixed(0)} µs vs off ${o.toFixed(0)} µs (+${(t - o).toFixed(0)} µs), ${MESSAGES} messages each in alternating blocks of ${BLOCK}; CPU per message on ${(cpu.on / MESSAGES).toFixed(0)} µs vs off ${(cpu.off / MESSAGES).toFixed(0)} µs (${(cpu.on / cpu.off).toFixed(3)}x); ${await collector.exports()} exports reached the local collector (in its own process; default batching: every 5 s or 512 spans)`,
        },
      ];
    } finally {
      await model.close();
      collector.child.kill();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
