import { performance } from 'node:perf_hooks';

/** One bot under measurement: `send(i)` sends mention i and resolves with its reply latency in ms, or null when lost. */
export interface LoopSide {
  readonly name: string;
  send(i: number): Promise<number | null>;
  /** CPU ms the bot's process has used so far (null when unreadable). */
  cpuMs(): number | null;
}

/** What a side did over the measured blocks. */
export interface LoopResult {
  readonly latencies: number[];
  sent: number;
  lost: number;
  /** Seconds from each block's first send to its last answer, summed over blocks. */
  seconds: number;
  /** CPU ms over the blocks, or null when it could not be read. */
  cpuMs: number | null;
}

/**
 * Closed loop, as the outside perf harness drives it: `concurrency` workers each send a mention and
 * wait for its reply before sending the next, over mentions `first`…`first + n - 1`.
 */
export async function closedLoop(
  side: LoopSide,
  first: number,
  n: number,
  concurrency: number,
): Promise<{ latencies: number[]; lost: number; seconds: number }> {
  const latencies: number[] = [];
  let next = first;
  let lost = 0;
  const t0 = performance.now();
  let tEnd = t0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, n) }, async () => {
      while (next < first + n) {
        const ms = await side.send(next++);
        if (ms === null) lost++;
        else {
          latencies.push(ms);
          tEnd = performance.now();
        }
      }
    }),
  );
  return { latencies, lost, seconds: (tEnd - t0) / 1000 };
}

/**
 * `n` mentions per side in `blocks` blocks, alternating which side goes first (A B, B A, …), so drift
 * in the shared machine's load hits both alike; CPU is read around each side's own blocks only.
 */
export async function alternateBlocks(
  sides: readonly LoopSide[],
  o: { n: number; blocks: number; concurrency: number },
): Promise<Map<string, LoopResult>> {
  const results = new Map<string, LoopResult>(
    sides.map((s) => [s.name, { latencies: [], sent: 0, lost: 0, seconds: 0, cpuMs: 0 }]),
  );
  const per = Math.ceil(o.n / o.blocks);
  for (let b = 0; b < o.blocks; b++) {
    for (const side of b % 2 === 0 ? sides : [...sides].reverse()) {
      const r = results.get(side.name)!;
      const count = Math.min(per, o.n - b * per);
      const cpu0 = side.cpuMs();
      const block = await closedLoop(side, b * per, count, o.concurrency);
      const cpu1 = side.cpuMs();
      r.cpuMs = cpu0 === null || cpu1 === null || r.cpuMs === null ? null : r.cpuMs + cpu1 - cpu0;
      r.latencies.push(...block.latencies);
      r.sent += count;
      r.lost += block.lost;
      r.seconds += block.seconds;
    }
  }
  return results;
}
