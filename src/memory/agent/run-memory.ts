import type { RunMemory } from '../../agent/context-assembly.js';
import type { ReadContext } from '../../agent/context-read.js';
import type { SummaryWriter } from '../../agent/context-summary.js';
import { chooseMemories, MATCHED_MEMORIES, NEWEST_MEMORIES } from '../memory-choice.js';
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
    ...(store.readContext ? { readContext: contextReader(store, memoryTokens) } : {}),
  };
}

/**
 * A request's context in the store's one read: the same memories `recall` chooses (matched, then newest, within
 * `memoryTokens`; none read when that is 0), the summaries and the transcript's window.
 */
function contextReader(store: MemoryStore, memoryTokens: number): ReadContext {
  return async (read) => {
    const { memoryOf } = read;
    const got = await store.readContext!({
      conversationId: read.conversationId,
      owner: read.viewer,
      historyRows: read.historyRows,
      memories:
        memoryOf && memoryTokens > 0
          ? {
              visibility: memoryVisibility(memoryOf.principal, memoryOf.place),
              query: memoryOf.goal,
              matched: MATCHED_MEMORIES,
              newest: NEWEST_MEMORIES,
            }
          : null,
      conversation: read.conversation === true,
      pins: read.pins === true,
    });
    return {
      summary: got.summary,
      mine: got.privateSummary,
      window: got.window,
      memories: memoryOf && memoryTokens > 0 ? chooseMemories(got.matched, got.newest, memoryTokens) : [],
      ...(got.conversation !== undefined ? { conversation: got.conversation } : {}),
      ...(got.pins !== undefined ? { pins: got.pins } : {}),
    };
  };
}
