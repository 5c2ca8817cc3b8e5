import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { context, type ContextManager } from '@opentelemetry/api';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { silentLogger } from '../src/logger.js';
import { loadTracing } from '../src/telemetry/load-tracing.js';
import { noopTracing, type Tracing } from '../src/telemetry/tracing.js';
import { startFakeOpenAI } from '../tests/fakes/fake-openai.js';
import { MemoryAdapter } from '../tests/fakes/memory-adapter.js';
import type { Benchmark } from './benchmark.js';
import { nextPost } from './next-post.js';
import { median, percentile } from './overhead-figures.js';
import { promiseHooksOn } from '../tests/fakes/promise-hooks.js';

const WARMUP = 100;
/** Messages per condition (BENCH_TRACING_MESSAGES), in alternating blocks so drift on a shared machine hits both alike. */
const MESSAGES = Number(process.env.BENCH_TRACING_MESSAGES ?? 2000);
/** Messages per block (BENCH_TRACING_BLOCK). */
const BLOCK = Number(process.env.BENCH_TRACING_BLOCK ?? 50);
/** BENCH_TRACING_ONLY=on|off: every block in one condition (to profile one side with `node --cpu-prof`); no figure then. */
const ONLY = process.env.BENCH_TRACING_ONLY;

interface CollectorCount {
  readonly spans: number;
  readonly requests: number;
  readonly names: readonly string[];
  /** How the exports were encoded (`protobuf`, `json`), as the collector decoded them. */
  readonly encodings: readonly string[];
}

/**
 * The tests' OTLP/HTTP collector (it decodes each export, JSON or protobuf, into spans) in a process of its own,
 * as a real one is: its work never runs on Errand's event loop. `count` asks it what it has received.
 */
async function startCollectorProcess(): Promise<{
  endpoint: string;
  count: () => Promise<CollectorCount>;
  child: ChildProcess;
}> {
  const script = join(import.meta.dirname, 'otlp-collector-process.ts');
  const child = spawn(process.execPath, [...process.execArgv, script], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  const [chunk] = (await once(child.stdout!, 'data')) as [Buffer];
  const endpoint = chunk.toString().trim();
  const count = async (): Promise<CollectorCount> => {
    const answer = once(child, 'message') as Promise<[CollectorCount]>;
    child.send('count');
    return (await answer)[0];
  };
  return { endpoint, child, count };
}

/**
 * OpenTelemetry's global context manager's storage switched off, as in a process without tracing: on Node 20 an
 * enabled AsyncLocalStorage hooks every promise of the process, so "off" blocks would otherwise still pay for the
 * "on" blocks' storage. Errand's tracing registers none (its own storage switches itself off: telemetry/otel-tracing.ts);
 * this keeps the comparison fair for a tracing that does (AsyncLocalStorageContextManager, which the next span
 * turns on again), and the promise-hook check below tells either way.
 */
function contextOff(): void {
  (context as unknown as { _getContextManager(): ContextManager })._getContextManager().disable();
}

/** The middle half of `xs` as `low–high`. */
const spread = (xs: number[], digits: number) =>
  `${percentile(xs, 25).toFixed(digits)}–${percentile(xs, 75).toFixed(digits)}`;

/**
 * Errand's message pipeline with traces on (every run, model request and delivery a span, sent in batches to a
 * local OTLP/HTTP collector that decodes them) against the same pipeline with traces off, on the same zero-latency
 * fake model and an in-memory adapter, one message at a time: the cost of tracing per message. One app serves both
 * conditions, its tracing switched block by block (two apps differ by several per cent between themselves on a
 * busy machine); an "off" block runs with no span, no context storage and no promise hook, as a process without
 * tracing does (checked: the bench fails if a promise hook is on in one). The figure is the median over pairs of
 * neighbouring blocks of (on block's median ÷ off block's median), so slow drift of the machine cancels out.
 */
export const benchmark: Benchmark = {
  name: 'tracing',
  figures: ['tracing_overhead_ratio'],
  async run() {
    const model = await startFakeOpenAI();
    const collector = await startCollectorProcess();
    const dir = mkdtempSync(join(tmpdir(), 'errand-bench-tracing-'));
    // The bench's own OTEL_* settings (OTEL_EXPORTER_OTLP_PROTOCOL, OTEL_BSP_*…) apply, the collector being the local one.
    const own = Object.entries(process.env).filter(([k]) => k.startsWith('OTEL_') && !k.endsWith('_ENDPOINT'));
    const traced = await loadTracing(
      { ...Object.fromEntries(own), OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint },
      silentLogger(),
    );
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
      const config = loadConfig({
        OPENAI_BASE_URL: model.baseUrl,
        OPENAI_API_KEY: 'bench',
        DATABASE_PATH: join(dir, 'errand.db'),
      });
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
      let hookedOffBlocks = 0;
      const block = async (wanted: boolean, count: number): Promise<{ ms: number[]; cpuUs: number }> => {
        const on = ONLY === undefined ? wanted : ONLY === 'on';
        tracingOn = on;
        if (!on) {
          contextOff();
          if (await promiseHooksOn()) hookedOffBlocks++;
        }
        const ms: number[] = [];
        const before = process.cpuUsage();
        for (let i = 0; i < count; i++) ms.push(await message());
        const used = process.cpuUsage(before);
        return { ms, cpuUs: used.user + used.system };
      };
      for (let i = 0; i < WARMUP / 10; i++) {
        await block(false, 5);
        await block(true, 5);
      }
      const spansBefore = (await collector.count()).spans;
      const offMs: number[] = [];
      const onMs: number[] = [];
      const ratios: number[] = [];
      const cpu = { off: 0, on: 0 };
      // Which condition goes first alternates too, so neither always runs after the other's garbage.
      for (let done = 0, onFirst = false; done < MESSAGES; done += BLOCK, onFirst = !onFirst) {
        const first = await block(onFirst, BLOCK);
        const second = await block(!onFirst, BLOCK);
        const [on, off] = onFirst ? [first, second] : [second, first];
        onMs.push(...on.ms);
        offMs.push(...off.ms);
        cpu.on += on.cpuUs;
        cpu.off += off.cpuUs;
        ratios.push(median(on.ms) / median(off.ms));
      }
      await app.stop();
      await traced.shutdown();
      const received = await collector.count();
      const spans = received.spans - spansBefore;
      if (hookedOffBlocks > 0)
        throw new Error(`${hookedOffBlocks} "off" blocks ran with a promise hook on: they were not off`);
      if (spans < MESSAGES * 2 && ONLY === undefined)
        throw new Error(`the collector decoded ${spans} spans for ${MESSAGES} traced messages: tracing was not on`);
      const o = median(offMs) * 1000;
      const t = median(onMs) * 1000;
      return [
        {
          name: 'tracing_overhead_ratio',
          value: median(ratios),
          unit: 'x',
          detail:
            `median of ${ratios.length} block-pair ratios (middle half ${spread(ratios, 3)}); ${MESSAGES} messages each way in alternating blocks of ${BLOCK}; ` +
            `pooled median per message: on ${t.toFixed(0)} µs vs off ${o.toFixed(0)} µs (+${(t - o).toFixed(0)} µs, ${(t / o).toFixed(3)}x); ` +
            `CPU per message on ${(cpu.on / MESSAGES).toFixed(0)} µs vs off ${(cpu.off / MESSAGES).toFixed(0)} µs (${(cpu.on / cpu.off).toFixed(3)}x); ` +
            `the local collector (own process) decoded ${spans} spans (${(spans / MESSAGES).toFixed(2)} per traced message: ${received.names.join(', ')}) from ${received.requests} exports in ${received.encodings.join(' and ')}` +
            ` (${own.length > 0 ? own.map(([k, v]) => `${k}=${v}`).join(' ') : 'no OTEL_* setting: the defaults'})`,
        },
      ];
    } finally {
      await model.close();
      collector.child.disconnect();
      collector.child.kill();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
