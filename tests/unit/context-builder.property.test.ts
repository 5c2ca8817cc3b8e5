import { describe, expect, it } from 'vitest';
import { seededRandom as prng } from '../fakes/seeded-random.js';
import { buildContext } from '../../src/agent/context-builder.js';
import { wasCut } from '../../src/agent/context-cut.js';
import type { LlmMessage } from '../../src/agent/llm-client.js';
import { estimateRequestTokens } from '../../src/agent/token-estimate.js';
import type { MessageRow, StoredToolCall } from '../../src/db/schema.js';
import { requestProblem } from '../fakes/fake-openai.js';

interface Case {
  rows: MessageRow[];
  goal: string | null;
  goalRowPresent: boolean;
  budget: number;
  scale: number;
  systemPrompt: string;
  pendingToolCallId: string | undefined;
}

function generate(seed: number): Case {
  const rnd = prng(seed);
  const int = (n: number) => Math.floor(rnd() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  let id = 0;
  let texts = 0;
  const text = (tag: string) => {
    const size = pick([0, 3, 40, 300, 2_000, 9_000, 30_000]);
    return `${tag}#${++texts} ${'é ab1'.repeat(Math.ceil(size / 5)).slice(0, size)}`;
  };
  let call = 0;
  const rows: MessageRow[] = [];
  const row = (r: Pick<MessageRow, 'role' | 'content'> & Partial<MessageRow>): void => {
    rows.push({
      id: ++id,
      conversationId: 'c',
      runId: 'r',
      toolCalls: null,
      toolCallId: null,
      authorId: null,
      platformMessageId: null,
      images: null,
      createdAt: id,
      privateTo: null,
      ...r,
    });
  };
  const late: { toolCallId: string; content: string }[] = [];
  const turn = () => {
    const kind = rnd();
    if (kind < 0.12) return row({ role: 'user', content: text('user') });
    if (kind < 0.16) return row({ role: 'system', content: text('system-row') });
    if (kind < 0.19) return row({ role: 'assistant', content: null });
    if (kind < 0.21) return row({ role: 'tool', content: text('orphan'), toolCallId: `nobody_${int(1000)}` });
    const calls: StoredToolCall[] = Array.from({ length: int(4) }, () => ({
      id: `call_${++call}`,
      name: pick(['list_tasks', 'send_update', 'ask_user']),
      arguments: JSON.stringify({ text: text('arg').slice(0, pick([2, 50, 600])) }),
    }));
    row({
      role: 'assistant',
      content: rnd() < 0.5 ? null : text('assistant'),
      toolCalls: calls.length > 0 ? calls : null,
    });
    for (const c of calls) {
      const fate = rnd();
      if (fate < 0.75) row({ role: 'tool', content: text('result'), toolCallId: c.id });
      else if (fate < 0.85) late.push({ toolCallId: c.id, content: text('late-result') });
      else if (fate < 0.9) {
        row({ role: 'tool', content: text('result'), toolCallId: c.id });
        row({ role: 'tool', content: text('duplicate'), toolCallId: c.id });
      }
    }
    if (late.length > 0 && rnd() < 0.3) row({ role: 'tool', ...late.shift()! });
  };

  const goalMode = pick(['present', 'present', 'absent', 'null'] as const);
  const goal = goalMode === 'null' ? null : `GOAL-${seed} ${text('goal').slice(0, pick([10, 200, 5_000]))}`;
  const before = int(15);
  for (let i = 0; i < before; i++) turn();
  if (goal !== null && goalMode === 'present') row({ role: 'user', content: goal });
  const afterTurns = int(40);
  for (let i = 0; i < afterTurns; i++) turn();

  let pendingToolCallId: string | undefined;
  const lastAssistant = [...rows].reverse().find((r) => r.role === 'assistant' && r.toolCalls);
  if (lastAssistant && rnd() < 0.3) {
    pendingToolCallId = pick(lastAssistant.toolCalls!).id;
    if (rnd() < 0.5) row({ role: 'tool', content: 'stale answer', toolCallId: pendingToolCallId });
  }
  return {
    rows,
    goal,
    goalRowPresent: goalMode !== 'absent',
    budget: pick([500, 600, 1_000, 3_000, 16_000, 500 + int(40_000)]),
    scale: pick([1, 1, 1, 1.7, 3]),
    systemPrompt: `system ${'s'.repeat(pick([50, 1_500, 6_000]))}`,
    pendingToolCallId,
  };
}

function toApi(m: LlmMessage): { role: string; content?: unknown; tool_calls?: unknown; tool_call_id?: string } {
  if (m.role === 'tool') return { role: 'tool', tool_call_id: m.toolCallId, content: m.content };
  if (m.role === 'assistant' && m.toolCalls && m.toolCalls.length > 0)
    return {
      role: 'assistant',
      content: m.content,
      tool_calls: m.toolCalls.map((c) => ({
        id: c.id,
        type: 'function',
        function: { name: c.name, arguments: c.arguments },
      })),
    };
  return { role: m.role, content: m.content };
}

const carriesGoal = (m: LlmMessage | undefined, goal: string) =>
  m?.role === 'user' && (m.content === goal || m.content.startsWith(`${goal}\n\n(`));

describe('buildContext over random transcripts', () => {
  it('always builds a valid request that carries the goal and fits the budget whenever it can', () => {
    const CASES = 3_000;
    let overBudget = 0;
    let cutSomething = 0;
    for (let seed = 1; seed <= CASES; seed++) {
      const c = generate(seed);
      const built = buildContext({
        systemPrompt: c.systemPrompt,
        goal: c.goal,
        rows: c.rows,
        budgetTokens: c.budget,
        tokenScale: c.scale,
        ...(c.pendingToolCallId ? { pendingToolCallId: c.pendingToolCallId } : {}),
      });
      const m = built.messages;
      const where = `seed ${seed}`;

      expect(requestProblem(m.map(toApi)), where).toBeNull();
      expect(m[0], where).toEqual({ role: 'system', content: c.systemPrompt });
      expect(
        m.filter((x) => x.role === 'system'),
        where,
      ).toHaveLength(1);
      expect(m[1]?.role, where).toBe('user');
      expect(
        m.some((x) => x.role === 'tool' && x.toolCallId === c.pendingToolCallId),
        where,
      ).toBe(false);
      expect(
        m.some((x) => x.role === 'assistant' && x.toolCalls?.some((t) => t.id === c.pendingToolCallId)),
        where,
      ).toBe(false);

      const goal = c.goal ?? [...c.rows].reverse().find((r) => r.role === 'user')?.content ?? null;
      if (goal !== null) {
        expect(
          m.filter((x) => carriesGoal(x, goal)),
          where,
        ).toHaveLength(1);
        if (!c.goalRowPresent) expect(carriesGoal(m[1], goal), where).toBe(true);
      }

      expect(built.estimatedTokens, where).toBe(estimateRequestTokens(m));
      if (m.some((x) => x.role !== 'system' && x.content !== null && wasCut(x.content))) cutSomething++;
      if (built.estimatedTokens > Math.floor(c.budget / c.scale)) {
        overBudget++;
        // Only when nothing more can go: system, goal and the newest step with its texts cut to bare notes.
        const goalAt = goal === null ? 1 : m.findIndex((x) => carriesGoal(x, goal));
        const rest = m.slice(goalAt + 1);
        expect(rest.filter((x) => x.role === 'user' || x.role === 'assistant').length, where).toBeLessThanOrEqual(1);
        for (const x of rest) expect((x.content ?? '').length, where).toBeLessThanOrEqual(80);
      }
    }
    // The generator must reach the hard cases, or the property says little.
    expect(overBudget).toBeGreaterThan(50);
    expect(cutSomething).toBeGreaterThan(300);
  });
});
