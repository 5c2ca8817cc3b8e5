import { performance } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import { createMallocTrim } from './malloc-trim.js';

/** What the release watches and does; node's own by default (see `nodeHeapSignals`). */
export interface HeapSignals {
  /** Bytes the JS heap holds from the operating system now. */
  committed(): number;
  /** Share (0–1) of the time since the previous call that the event loop was busy. */
  busyShare(): number;
  /** A full garbage collection, after which V8 hands its empty pages back. */
  collect(): void;
  /**
   * Hands native memory the collection freed back to the operating system (glibc's `malloc_trim`),
   * where the platform can; called a little after the collection, once V8 has freed what it swept.
   */
  releaseNative?(): void;
}

export interface IdleHeapReleaseOptions {
  signals: HeapSignals;
  /** Calls `tick` every `ms` until stopped; the timer must not keep the process alive. */
  every(tick: () => void, ms: number): { stop(): void };
  /** Calls `fn` once after `ms`; the timer must not keep the process alive (default: an unref'd timeout). */
  after?(fn: () => void, ms: number): void;
  /** How long after a collection native memory is released (default 1 s). */
  releaseNativeAfterMs?: number;
  /** How often the loop is looked at (default 10 s). */
  periodMs?: number;
  /** A period with the loop busy less than this share counts as quiet (default 2 %). */
  quietBelow?: number;
  /** Heap growth since the last collection that is worth a collection when quiet (default 16 MB). */
  growthBytes?: number;
  /** Told about each collection, with the committed heap before and after. */
  onCollect?(before: number, after: number): void;
}

/**
 * Gives the JS heap back once Errand goes quiet after a burst. Under load V8 lets the heap grow to
 * several times what is live and leaves shrinking it to its memory reducer, whose start depends on
 * heuristics: after 10 000 conversations the idle process held either ~30 MB or ~190 MB of heap,
 * run to run. One full collection when the loop has been quiet for a whole period, and only when
 * the heap grew since the previous one, makes the idle footprint the live size; it costs one GC per
 * burst and nothing while busy.
 */
export function startIdleHeapRelease(options: IdleHeapReleaseOptions): { stop(): void } {
  const { signals } = options;
  const quietBelow = options.quietBelow ?? 0.02;
  const growthBytes = options.growthBytes ?? 16 * 1024 * 1024;
  let baseline = signals.committed();
  signals.busyShare();
  return options.every(() => {
    if (signals.busyShare() >= quietBelow) return;
    const before = signals.committed();
    if (before < baseline + growthBytes) {
      baseline = Math.min(baseline, before);
      return;
    }
    signals.collect();
    baseline = signals.committed();
    options.onCollect?.(before, baseline);
    const releaseNative = signals.releaseNative;
    if (releaseNative) (options.after ?? unrefTimeout)(() => releaseNative(), options.releaseNativeAfterMs ?? 1_000);
  }, options.periodMs ?? 10_000);
}

/**
 * Node's heap signals, when node runs with `--expose-gc` (the start script's flag); null otherwise,
 * and then V8's own memory reducer is all there is. Native memory is released with glibc's `malloc_trim`
 * where there is glibc (see `createMallocTrim`).
 */
export function nodeHeapSignals(): HeapSignals | null {
  const gc: unknown = (globalThis as { gc?: unknown }).gc;
  if (typeof gc !== 'function') return null;
  const trim = createMallocTrim();
  let last = performance.eventLoopUtilization();
  return {
    committed: () => getHeapStatistics().total_heap_size,
    busyShare: () => {
      const now = performance.eventLoopUtilization();
      const share = performance.eventLoopUtilization(now, last).utilization;
      last = now;
      return share;
    },
    collect: () => (gc as () => void)(),
    releaseNative: () => void trim(),
  };
}

function unrefTimeout(fn: () => void, ms: number): void {
  setTimeout(fn, ms).unref();
}

/** An unref'd interval: the release never keeps Errand running. */
export function unrefInterval(tick: () => void, ms: number): { stop(): void } {
  const timer = setInterval(tick, ms);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
