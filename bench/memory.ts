import { performance } from 'node:perf_hooks';
import { assembleContext } from '../src/agent/context-assembly.js';
import { systemClock } from '../src/clock.js';
import { closeDatabase, openDatabase } from '../src/db/client.js';
import { silentLogger } from '../src/logger.js';
import type { MemoryVisibility } from '../src/memory/memory-store.js';
import { memoriesForRequest } from '../src/memory/request-memories.js';
import { createSqliteStore } from '../src/composition/sqlite-store.js';
import { runMemory } from '../src/memory/agent/run-memory.js';
import type { Benchmark } from './benchmark.js';
import { median } from './overhead-figures.js';

const MESSAGES = 2_000;
const MEMORIES = 10_000;
const WARMUP = 30;
const REPEATS = 200;

/** Median wall time of one call, and the process's mean CPU time per call (what the call costs on a busy machine). */
async function timed(fn: () => Promise<unknown>): Promise<{ wall: number; cpu: number }> {
  for (let i = 0; i < WARMUP; i++) await fn();
  const times: number[] = [];
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < REPEATS; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  const cpu = process.cpuUsage(cpu0);
  return { wall: median(times), cpu: (cpu.user + cpu.system) / 1000 / REPEATS };
}

/** A deterministic stream of numbers in [0, 1). */
function seeded(seed: number): () => number {
  let x = seed;
  return () => (x = (x * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
}

const TOPICS = [
  'payments',
  'staging',
  'deploy',
  'review',
  'Lisbon',
  'German',
  'release',
  'Thursday',
  'database',
  'on-call',
  'budget',
  'design',
  'customer',
  'invoice',
  'roadmap',
  'metrics',
];
const random = seeded(7);
/** A vocabulary of 5 000 words picked Zipf-like (a few common, most rare), the topics among the commoner ones. */
const word = () => {
  const rank = Math.floor(5000 ** random());
  return rank < TOPICS.length * 4 && rank % 4 === 0 ? TOPICS[rank / 4]! : `w${rank}`;
};
const sentence = (i: number) => `Fact ${i}: ${Array.from({ length: 14 }, word).join(' ')}.`;
/** The worst case: every memory made of the same sixteen topic words, so every word of the goal matches them all. */
const sameWords = (i: number) =>
  `Fact ${i}: ${Array.from({ length: 12 }, (_, k) => TOPICS[(i * 7 + k * 3) % TOPICS.length]).join(' ')}.`;

async function fill(store: ReturnType<typeof createSqliteStore>, text: (i: number) => string): Promise<void> {
  await store.atomically(async (tx) => {
    for (let i = 0; i < MEMORIES; i++) {
      const scope = i % 10 === 0 ? 'channel' : i % 97 === 0 ? 'workspace' : 'me';
      const subject = scope === 'me' ? `slack:U${i % 100}` : scope === 'channel' ? `slack:T1:C${i % 50}` : 'slack:T1';
      await tx.memory.remember({ scope, subject, text: text(i), createdBy: `slack:U${i % 100}` });
    }
  });
}

/** The lookup when every memory contains the goal's words: the full-text index narrows nothing but the owners. */
async function worstCaseLookup(goal: string, visibility: MemoryVisibility): Promise<{ wall: number; cpu: number }> {
  const db = openDatabase(':memory:');
  const store = createSqliteStore(db, systemClock);
  try {
    await fill(store, sameWords);
    return await timed(() => memoriesForRequest(store.memory, visibility, goal, 1000));
  } finally {
    closeDatabase(db);
  }
}

/**
 * `compaction_ms`: one request of a run in a 2 000-message thread whose older part is summarised — read the
 * summary, the memories and the newest rows from SQLite, build (system prompt, memories, summary, goal, newest).
 * `memory_lookup_ms`: the memories of one request among 10 000 (100 people, 50 channels, a workspace): the
 * full-text match to the goal, then the newest, within MEMORY_TOKEN_BUDGET.
 */
export const benchmark: Benchmark = {
  name: 'memory',
  figures: ['compaction_ms', 'memory_lookup_ms'],
  async run() {
    const db = openDatabase(':memory:');
    const store = createSqliteStore(db, systemClock);
    try {
      const ref = { platform: 'slack', workspace: 'T1', channel: 'C1', thread: '1700000000.000100' };
      const conversationId = await store.conversations.ensure(ref);
      let through = 0;
      await store.atomically(async (tx) => {
        for (let i = 0; i < MESSAGES; i++) {
          const id = await tx.transcript.append({
            conversationId,
            runId: 'r',
            role: i % 2 === 0 ? 'user' : 'assistant',
            content: `${i % 2 === 0 ? 'Question' : 'Answer'} ${i}: ${'words '.repeat(40)}`,
          });
          if (i === MESSAGES - 200) through = id;
        }
      });
      await fill(store, sentence);
      await store.memory.saveSummary(
        conversationId,
        0,
        `Summary: ${'earlier facts and decisions, '.repeat(150)}`,
        through,
      );
      const visibility: MemoryVisibility = { person: 'slack:U1', channel: 'slack:T1:C1', workspace: 'slack:T1' };
      const place = { platform: 'slack', workspace: 'T1', channel: 'C1', thread: null };
      const goal = 'Who reviews the payments release on Thursday, and where is staging?';
      const signal = new AbortController().signal;
      const request = (memoryTokens: number) => () =>
        assembleContext(
          {
            runId: 'r',
            conversationId,
            systemPrompt: 'You are Errand. '.repeat(200),
            goal,
            budgetTokens: 16_000,
            tokenScale: 1,
            historyRows: 400,
            memoryOf: { principal: { platform: 'slack', userId: 'U1' }, place },
            viewer: 'U1',
            signal,
          },
          { transcript: store.transcript, logger: silentLogger(), memory: runMemory(store.memory, memoryTokens) },
          { failed: false },
        );
      const compaction = await timed(request(0));
      const whole = await timed(request(1000));
      const chosen = await memoriesForRequest(store.memory, visibility, goal, 1000);
      const lookup = await timed(() => memoriesForRequest(store.memory, visibility, goal, 1000));
      const worst = await worstCaseLookup(goal, visibility);
      return [
        {
          name: 'compaction_ms',
          value: compaction.wall,
          unit: 'ms',
          detail: `median of ${REPEATS} requests built for a ${MESSAGES}-message thread with a stored summary (the summary and the newest 400 rows read from SQLite, then built; no model call); CPU ${compaction.cpu.toFixed(3)} ms each; with the memories of memory_lookup_ms chosen too ${whole.wall.toFixed(3)} ms, CPU ${whole.cpu.toFixed(3)} ms`,
        },
        {
          name: 'memory_lookup_ms',
          value: lookup.wall,
          unit: 'ms',
          detail: `median of ${REPEATS} choices among ${MEMORIES} memories (SQLite FTS5 match to the goal, then newest; ${chosen.length} chosen within 1 000 tokens); CPU ${lookup.cpu.toFixed(3)} ms each; worst case (every memory shares the goal's words) ${worst.wall.toFixed(3)} ms, CPU ${worst.cpu.toFixed(3)} ms`,
        },
      ];
    } finally {
      closeDatabase(db);
    }
  },
};
