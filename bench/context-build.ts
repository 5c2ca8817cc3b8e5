import { performance } from 'node:perf_hooks';
import { buildContext } from '../src/agent/context-builder.js';
import type { MessageRow } from '../src/db/schema.js';
import type { Benchmark } from './benchmark.js';
import { median } from './overhead-figures.js';

const ROWS = 2_000;
const WARMUP = 50;
const REPEATS = 300;


/**
 * A long conversation: requests, assistant steps with one to three tool calls, results from a few
 * characters to 20 000, an occasional missing result; the goal of the current run sits mid-way.
 */
function transcript(): { rows: MessageRow[]; goal: string } {
  const rows: MessageRow[] = [];
  let id = 0;
  let call = 0;
  const add = (r: Pick<MessageRow, 'role' | 'content'> & Partial<MessageRow>) =>
    rows.push({ id: ++id, conversationId: 'bench', runId: 'r', toolCalls: null, toolCallId: null, authorId: 'U1', platformMessageId: null, images: null, createdAt: id, privateTo: null, ...r });
  const sizes = [20, 300, 1_500, 4_000, 20_000];
  let goal = '';
  while (rows.length < ROWS) {
    if (rows.length % 40 === 0) {
      const request = `Request ${rows.length}: summarise the open tasks and post the result.`;
      add({ role: 'user', content: request });
      if (rows.length > ROWS / 2 && goal === '') goal = request;
      continue;
    }
    const calls = Array.from({ length: 1 + (id % 3) }, () => ({ id: `call_${++call}`, name: 'list_tasks', arguments: '{"filter":"open"}' }));
    add({ role: 'assistant', content: id % 4 === 0 ? 'Looking at the list now.' : null, toolCalls: calls });
    for (const c of calls) if (call % 17 !== 0) add({ role: 'tool', content: 'r'.repeat(sizes[call % sizes.length]!), toolCallId: c.id });
  }
  return { rows: rows.slice(0, ROWS), goal };
}

function timeBuild(rows: MessageRow[], goal: string, budgetTokens: number): number {
  const systemPrompt = 'You are Errand. '.repeat(200);
  for (let i = 0; i < WARMUP; i++) buildContext({ systemPrompt, goal, rows, budgetTokens });
  const times: number[] = [];
  for (let i = 0; i < REPEATS; i++) {
    const t0 = performance.now();
    buildContext({ systemPrompt, goal, rows, budgetTokens, tokenScale: 1.3 });
    times.push(performance.now() - t0);
  }
  return median(times);
}

export const benchmark: Benchmark = {
  name: 'context',
  figures: ['context_build_ms'],
  async run() {
    const { rows, goal } = transcript();
    const usual = timeBuild(rows, goal, 16_000);
    const everything = timeBuild(rows, goal, 2_000_000);
    return [
      {
        name: 'context_build_ms',
        value: usual,
        unit: 'ms',
        detail: `median of ${REPEATS} builds over ${ROWS} transcript rows at the default 16 000-token budget; ${everything.toFixed(3)} ms when a 2 000 000-token budget keeps every row`,
      },
    ];
  },
};
