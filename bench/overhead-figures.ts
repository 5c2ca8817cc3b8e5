import type { BenchFigure } from './benchmark.js';

/** What an overhead benchmark measured for each bot: reply latencies (ms) and CPU ms per message. */
export interface OverheadSample {
  readonly latencies: Record<'bare' | 'errand', number[]>;
  readonly cpuPerMessage: Record<'bare' | 'errand', number>;
  /** Platform API calls per measured message, by method (e.g. `chat.postMessage 1.00`). */
  readonly callsPerMessage?: Record<'bare' | 'errand', string>;
}

/** `method n` per message for the calls a fake recorded during the measured window. */
export function callMix(methods: string[], messages: number): string {
  const counts = new Map<string, number>();
  for (const m of methods) counts.set(m, (counts.get(m) ?? 0) + 1);
  return [...counts].map(([m, n]) => `${m} ${(n / messages).toFixed(2)}`).join(', ');
}

/** The value at percentile `p` (0–100) of `xs`. */
export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))] ?? 0;
}

/** The middle value of `xs` (the upper one of the two middles for an even count). */
export function median(xs: number[]): number {
  return percentile(xs, 50);
}

/**
 * `<platform>_overhead_ratio` (median latency, Errand ÷ bare) and `<platform>_cpu_ratio` (CPU per
 * message, Errand ÷ bare): the target holds both under 1.3, so both are printed, each with the raw
 * figures behind it. They compare like with like: Errand with `STREAMING=false`, since a bare bot
 * posts its answer once. `streamed` (Errand as configured by default, streaming its answers) is
 * printed beside them as `<platform>_streaming_overhead_ratio` and `<platform>_streaming_cpu_ratio`,
 * and named in the details of the main two, so the cost of streaming stays visible.
 */
export function overheadFigures(
  platform: string,
  bareName: string,
  s: OverheadSample,
  how: string,
  streamed?: OverheadSample,
): BenchFigure[] {
  const main = ratios(platform, bareName, s, `Errand with STREAMING=false; ${how}`);
  if (!streamed) return main;
  const extra = ratios(
    `${platform}_streaming`,
    bareName,
    streamed,
    `Errand streaming its answers (the default), a separate pair of bots after the first; ${how}`,
  );
  const note = (f: BenchFigure, e: BenchFigure): BenchFigure => ({
    ...f,
    detail: `${f.detail ?? ''}; streaming on: ${e.value.toFixed(3)}x`,
  });
  return [note(main[0]!, extra[0]!), note(main[1]!, extra[1]!), ...extra];
}

function ratios(prefix: string, bareName: string, s: OverheadSample, how: string): BenchFigure[] {
  const b = percentile(s.latencies.bare, 50);
  const e = percentile(s.latencies.errand, 50);
  const n = s.latencies.errand.length;
  return [
    {
      name: `${prefix}_overhead_ratio`,
      value: e / b,
      unit: 'x',
      detail: `median mention → reply: Errand ${e.toFixed(2)} ms vs ${bareName} ${b.toFixed(2)} ms (p90 ${percentile(s.latencies.errand, 90).toFixed(2)} vs ${percentile(s.latencies.bare, 90).toFixed(2)} ms), ${n} mentions each, alternating; ${how}`,
    },
    {
      name: `${prefix}_cpu_ratio`,
      value: s.cpuPerMessage.errand / s.cpuPerMessage.bare,
      unit: 'x',
      detail: `CPU per message (bot process only, user + system, echoes included): Errand ${s.cpuPerMessage.errand.toFixed(2)} ms vs ${bareName} ${s.cpuPerMessage.bare.toFixed(2)} ms${s.callsPerMessage ? `; API calls per message: Errand ${s.callsPerMessage.errand}; ${bareName} ${s.callsPerMessage.bare}` : ''}`,
    },
  ];
}
