import type { RunMemory } from '../../agent/context-assembly.js';
import type { SummaryWriter } from '../../agent/context-summary.js';
import type { MemoryStore } from '../memory-store.js';
import { memoryVisibility } from '../memory-visibility.js';
import { memoriesForRequest } from '../request-memories.js';

/**
 * What a run remembers with, plugged into the agent from here: the store's summaries, and the long-term memories
 * its principal may see in its conversation (memory-visibility.ts), chosen for each request (request-memories.ts).
 */
export function runMemory(store: MemoryStore, memoryTokens: number, writeSummary?: SummaryWriter): RunMemory {
  return {
    store,
    memoryTokens,
    ...(writeSummary ? { writeSummary } : {}),
    recall: (principal, place, goal, budgetTokens) =>
      memoriesForRequest(store, memoryVisibility(principal, place), goal, budgetTokens),
  };
}
