import type { MemoryRow } from './memory-store.js';

/** How the store is asked for the memories of one request. */
export const MATCHED_MEMORIES = 20;
export const NEWEST_MEMORIES = 50;

/** Rough tokens of a memory line as the prompt shows it (`- [#id, scope] text`): four characters a token. */
export function memoryLineTokens(memory: Pick<MemoryRow, 'id' | 'text'>): number {
  return Math.ceil((memory.text.length + String(memory.id).length + 40) / 4);
}

/**
 * The memories one request carries: those matching the goal first (best first), then the newest, each
 * once, as many as fit `budgetTokens`. A memory too big for what is left is passed over for smaller ones.
 */
export function chooseMemories(
  matched: readonly MemoryRow[],
  newest: readonly MemoryRow[],
  budgetTokens: number,
): MemoryRow[] {
  const chosen: MemoryRow[] = [];
  const seen = new Set<number>();
  let left = budgetTokens;
  for (const m of [...matched, ...newest]) {
    if (seen.has(m.id)) continue;
    seen.add(m.id);
    const cost = memoryLineTokens(m);
    if (cost > left) continue;
    chosen.push(m);
    left -= cost;
  }
  return chosen;
}
