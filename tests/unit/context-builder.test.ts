import { describe, expect, it } from 'vitest';
import { buildContext, type ContextRequest } from '../../src/agent/context-builder.js';
import { cutText, wasCut } from '../../src/agent/context-cut.js';
import { calibrateTokenScale } from '../../src/agent/token-calibration.js';
import { estimateRequestTokens } from '../../src/agent/token-estimate.js';
import { INTERRUPTED_RESULT } from '../../src/agent/transcript-units.js';
import type { MessageRow, StoredToolCall } from '../../src/db/schema.js';

let nextId = 0;
function row(r: Pick<MessageRow, 'role' | 'content'> & Partial<MessageRow>): MessageRow {
  nextId++;
  return {
    id: nextId,
    conversationId: 'c',
    runId: 'r1',
    toolCalls: null,
    toolCallId: null,
    authorId: null,
    platformMessageId: null,
    images: null,
    createdAt: nextId,
    privateTo: null,
    ...r,
  };
}
const call = (id: string, args = '{}'): StoredToolCall => ({ id, name: 'list_tasks', arguments: args });
/** One agent step: an assistant message calling one tool, and its result. */
const step = (id: string, result: string): MessageRow[] => [
  row({ role: 'assistant', content: null, toolCalls: [call(id)] }),
  row({ role: 'tool', content: result, toolCallId: id }),
];

const base = (over: Partial<ContextRequest>): ContextRequest => ({
  systemPrompt: 'You are Errand.',
  goal: 'Summarise the open tasks',
  rows: [],
  budgetTokens: 16_000,
  ...over,
});

describe('buildContext', () => {
  it("keeps the goal right after the system prompt when the run's own steps pass the budget", () => {
    const goal = row({ role: 'user', content: 'Summarise the open tasks' });
    const steps = Array.from({ length: 20 }, (_, i) => step(`call_${i}`, 'r'.repeat(2_000))).flat();
    const { messages, omittedMessages } = buildContext(base({ rows: [goal, ...steps], budgetTokens: 2_000 }));
    expect(messages[0]).toEqual({ role: 'system', content: 'You are Errand.' });
    expect(messages[1]).toMatchObject({ role: 'user' });
    expect(messages[1]!.content).toMatch(/^Summarise the open tasks\n\n\(\d+ older messages were left out/);
    expect(messages[2]).toMatchObject({ role: 'assistant' });
    expect(messages.at(-1)).toMatchObject({ role: 'tool', toolCallId: 'call_19' });
    expect(omittedMessages).toBeGreaterThan(0);
    expect(estimateRequestTokens(messages)).toBeLessThanOrEqual(2_000);
  });

  it('re-inserts the goal when its row is not among the rows (a retried run), and never sends it twice', () => {
    const rows = [...step('a', 'x'), ...step('b', 'y')];
    const retried = buildContext(base({ rows }));
    expect(retried.messages.filter((m) => m.content === 'Summarise the open tasks')).toHaveLength(1);
    expect(retried.messages[1]).toEqual({ role: 'user', content: 'Summarise the open tasks' });
    const first = buildContext(base({ rows: [row({ role: 'user', content: 'Summarise the open tasks' }), ...rows] }));
    expect(first.messages.filter((m) => m.content === 'Summarise the open tasks')).toHaveLength(1);
    expect(first.messages).toHaveLength(6);
  });

  it('keeps earlier requests and answers of the conversation before the goal while they fit, starting with a user message', () => {
    const rows = [
      row({ role: 'assistant', content: 'a leftover answer whose request is gone' }),
      row({ role: 'user', content: 'What is on my list?' }),
      row({ role: 'assistant', content: 'Three things.' }),
      row({ role: 'user', content: 'Summarise the open tasks' }),
      ...step('a', 'tasks'),
    ];
    const { messages } = buildContext(base({ rows }));
    expect(messages.map((m) => m.content)).toEqual([
      'You are Errand.',
      'What is on my list?',
      'Three things.',
      'Summarise the open tasks\n\n(1 older message was left out of this conversation to fit the context.)',
      null,
      'tasks',
    ]);
  });

  it('cuts a single oversized tool result with a note saying how much was cut', () => {
    const rows = [row({ role: 'user', content: 'Summarise the open tasks' }), ...step('a', 'z'.repeat(50_000))];
    const { messages } = buildContext(base({ rows, budgetTokens: 8_000 }));
    const result = messages.find((m) => m.role === 'tool')!;
    expect(result.content.length).toBeLessThanOrEqual(8_000);
    expect(result.content).toMatch(/^z+\n\[… 4\d \d{3} characters cut: result too long for the context\]$/);
    expect(wasCut(result.content)).toBe(true);
  });

  it('shrinks the newest step instead of dropping it when even it alone does not fit', () => {
    const rows = [
      row({ role: 'user', content: 'Summarise the open tasks' }),
      row({ role: 'assistant', content: 'Checking both.', toolCalls: [call('a'), call('b')] }),
      row({ role: 'tool', content: 'A'.repeat(6_000), toolCallId: 'a' }),
      row({ role: 'tool', content: 'short', toolCallId: 'b' }),
    ];
    const { messages } = buildContext(base({ rows, budgetTokens: 500 }));
    expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool']);
    expect(messages[3]!.content).toMatch(/characters cut: result too long for the context\]$/);
    expect(messages[4]!.content).toBe('short');
    expect(estimateRequestTokens(messages)).toBeLessThanOrEqual(500);
  });

  it('gives a call without a result an "interrupted" result and leaves out the question a run waits on', () => {
    const rows = [
      row({ role: 'user', content: 'Summarise the open tasks' }),
      row({ role: 'assistant', content: null, toolCalls: [call('crashed'), call('question')] }),
      row({ role: 'assistant', content: 'Still here.' }),
    ];
    const { messages } = buildContext(base({ rows, pendingToolCallId: 'question' }));
    expect(messages.slice(2)).toEqual([
      { role: 'assistant', content: null, toolCalls: [call('crashed')] },
      { role: 'tool', toolCallId: 'crashed', content: INTERRUPTED_RESULT },
      { role: 'assistant', content: 'Still here.' },
    ]);
  });

  it('joins an answer stored after later rows to the call it answers, and drops duplicate and orphan results', () => {
    const rows = [
      row({ role: 'user', content: 'Summarise the open tasks' }),
      row({ role: 'assistant', content: null, toolCalls: [call('ask'), call('list')] }),
      row({ role: 'tool', content: 'listed', toolCallId: 'list' }),
      row({ role: 'tool', content: 'listed again', toolCallId: 'list' }),
      row({ role: 'system', content: 'Note: the user changed the channel topic.' }),
      row({ role: 'tool', content: '{"ok":true,"answer":"yes"}', toolCallId: 'ask' }),
      row({ role: 'tool', content: 'nobody asked', toolCallId: 'ghost' }),
    ];
    const { messages } = buildContext(base({ rows }));
    expect(messages.slice(2)).toEqual([
      { role: 'assistant', content: null, toolCalls: [call('ask'), call('list')] },
      { role: 'tool', toolCallId: 'ask', content: '{"ok":true,"answer":"yes"}' },
      { role: 'tool', toolCallId: 'list', content: 'listed' },
      { role: 'user', content: 'Note: the user changed the channel topic.' },
    ]);
  });

  it('leaves out an assistant row with neither text nor tool calls', () => {
    const rows = [
      row({ role: 'user', content: 'Summarise the open tasks' }),
      row({ role: 'assistant', content: null }),
    ];
    expect(buildContext(base({ rows })).messages).toHaveLength(2);
  });

  it('sends fewer old steps when the model counts more tokens than estimated', () => {
    const rows = [
      row({ role: 'user', content: 'Summarise the open tasks' }),
      ...Array.from({ length: 30 }, (_, i) => step(`c${i}`, 'w'.repeat(400))).flat(),
    ];
    const plain = buildContext(base({ rows, budgetTokens: 3_000 }));
    const dense = buildContext(base({ rows, budgetTokens: 3_000, tokenScale: 2 }));
    expect(dense.messages.length).toBeLessThan(plain.messages.length);
    expect(dense.estimatedTokens * 2).toBeLessThanOrEqual(3_000);
  });

  it('with no goal given, pins the newest user message', () => {
    const rows = [
      ...step('a', 'x'.repeat(3_000)),
      row({ role: 'user', content: 'latest ask' }),
      ...Array.from({ length: 10 }, (_, i) => step(`s${i}`, 'y'.repeat(3_000))).flat(),
    ];
    const { messages } = buildContext(base({ goal: null, rows, budgetTokens: 1_500 }));
    expect(messages[1]!.content).toMatch(/^latest ask\n\n\(/);
  });
});

describe('cutText', () => {
  it('leaves text within the limit, or shorter than its note, alone', () => {
    expect(cutText('short', 3, 'result')).toBe('short');
    expect(cutText('x'.repeat(100), 100, 'result')).toBe('x'.repeat(100));
  });

  it('keeps the beginning and says how many characters were cut, with digit groups', () => {
    const cut = cutText('a'.repeat(10_000), 1_000, 'message');
    expect(cut.length).toBeLessThanOrEqual(1_000);
    const kept = cut.indexOf('\n');
    expect(cut.slice(kept + 1)).toBe(
      `[… ${(10_000 - kept).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ' ')} characters cut: message too long for the context]`,
    );
  });

  it('never splits a surrogate pair', () => {
    const cut = cutText('😀'.repeat(1_000), 501, 'result');
    expect(cut.split('\n')[0]).toMatch(/^(😀)+$/u);
  });
});

describe('calibrateTokenScale', () => {
  it('is the ratio of the reported prompt tokens to the estimate', () => {
    expect(calibrateTokenScale(1, 1_000, { promptTokens: 2_500, completionTokens: 10 })).toBe(2.5);
  });

  it('keeps the previous scale when the endpoint reports no usable usage', () => {
    expect(calibrateTokenScale(1.5, 1_000, undefined)).toBe(1.5);
    expect(calibrateTokenScale(1.5, 1_000, { promptTokens: 0, completionTokens: 0 })).toBe(1.5);
  });

  it('never lets the estimate grow the context past the budget, and stays bounded', () => {
    expect(calibrateTokenScale(2, 1_000, { promptTokens: 300, completionTokens: 1 })).toBe(1);
    expect(calibrateTokenScale(1, 10, { promptTokens: 1_000_000, completionTokens: 1 })).toBe(8);
  });
});
