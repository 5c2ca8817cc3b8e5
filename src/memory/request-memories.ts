import { chooseMemories, MATCHED_MEMORIES, NEWEST_MEMORIES } from './memory-choice.js';
import type { MemoryRow, MemoryStore, MemoryVisibility } from './memory-store.js';

/**
 * The memories one model request carries: those of `visibility` matching the goal (full text, best first),
 * then the newest, within `budgetTokens`. Read from the store every time, so a memory forgotten on any
 * process is gone from the next request.
 */
export async function memoriesForRequest(
  store: Pick<MemoryStore, 'search' | 'newest'>,
  visibility: MemoryVisibility,
  goal: string,
  budgetTokens: number,
): Promise<MemoryRow[]> {
  if (budgetTokens <= 0) return [];
  const [matched, newest] = await Promise.all([
    store.search(visibility, goal, MATCHED_MEMORIES),
    store.newest(visibility, NEWEST_MEMORIES),
  ]);
  return chooseMemories(matched, newest, budgetTokens);
}
