import type { MessageRow } from '../db/schema.js';
import type { LlmMessage } from './llm-client.js';

/** Rough token count (4 characters a token): good enough to keep a context within budget. */
export function estimateTokens(text: string | null | undefined): number {
  return Math.ceil((text?.length ?? 0) / 4) + 4;
}

const INTERRUPTED_RESULT = JSON.stringify({ ok: false, error: 'This tool call was interrupted before it finished (restart or stop).' });

/**
 * Turns stored transcript rows into the model's context within `budgetTokens`: oldest turns are
 * dropped first, an assistant message and its tool results are kept or dropped together, and a
 * tool call that never got a result (a crash mid-step) gets an "interrupted" result so the request
 * stays valid. `pendingToolCallId` (the question a run waits on) is left out entirely.
 */
export function buildContext(rows: readonly MessageRow[], budgetTokens: number, pendingToolCallId?: string): LlmMessage[] {
  const units: LlmMessage[][] = [];
  for (const row of rows) {
    if (row.role === 'tool') {
      const unit = units.at(-1);
      const owner = unit?.[0];
      if (owner?.role === 'assistant' && owner.toolCalls?.some((c) => c.id === row.toolCallId)) {
        unit!.push({ role: 'tool', toolCallId: row.toolCallId ?? '', content: row.content ?? '' });
      }
      continue;
    }
    if (row.role === 'assistant') {
      units.push([{ role: 'assistant', content: row.content, ...(row.toolCalls ? { toolCalls: row.toolCalls } : {}) }]);
    } else if (row.role === 'user' || row.role === 'system') {
      units.push([{ role: row.role === 'system' ? 'user' : 'user', content: row.content ?? '' }]);
    }
  }
  for (const unit of units) repairToolResults(unit, pendingToolCallId);

  const kept: LlmMessage[][] = [];
  let used = 0;
  for (let i = units.length - 1; i >= 0; i--) {
    const unit = units[i]!;
    const cost = unit.reduce((n, m) => n + estimateTokens(m.content) + ('toolCalls' in m && m.toolCalls ? estimateTokens(JSON.stringify(m.toolCalls)) : 0), 0);
    if (kept.length > 0 && used + cost > budgetTokens) break;
    kept.push(unit);
    used += cost;
  }
  const flat = kept.reverse().flat();
  while (flat.length > 1 && flat[0]!.role !== 'user') flat.shift();
  return flat;
}

function repairToolResults(unit: LlmMessage[], pendingToolCallId: string | undefined): void {
  const head = unit[0];
  if (!head || head.role !== 'assistant' || !head.toolCalls) return;
  if (pendingToolCallId && head.toolCalls.some((c) => c.id === pendingToolCallId)) {
    const calls = head.toolCalls.filter((c) => c.id !== pendingToolCallId);
    unit[0] = { role: 'assistant', content: head.content, ...(calls.length > 0 ? { toolCalls: calls } : {}) };
  }
  const answered = new Set(unit.filter((m) => m.role === 'tool').map((m) => (m as { toolCallId: string }).toolCallId));
  const first = unit[0] as Extract<LlmMessage, { role: 'assistant' }>;
  for (const call of first.toolCalls ?? []) {
    if (!answered.has(call.id)) unit.push({ role: 'tool', toolCallId: call.id, content: INTERRUPTED_RESULT });
  }
}
