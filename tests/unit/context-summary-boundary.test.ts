import { describe, expect, it } from 'vitest';
import { buildContext, SUMMARY_HEADING } from '../../src/agent/context-builder.js';
import { transcriptText } from '../../src/agent/context-summary.js';
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
const call = (id: string): StoredToolCall => ({ id, name: 'ask_user', arguments: '{}' });
const text = (n: number) => `message ${n} ${'x'.repeat(300)}`;

describe('what a summary covers', () => {
  it('covers exactly what was dropped: a call with its late answer goes whole, nothing kept is ever below the boundary', () => {
    nextId = 0;
    const rows = [
      row({ role: 'user', content: text(1) }),
      row({ role: 'assistant', content: null, toolCalls: [call('q1')] }),
      row({ role: 'user', content: text(3) }),
      // The answer to q1 arrived after message 3 was stored.
      row({ role: 'tool', content: 'the answer to q1', toolCallId: 'q1' }),
      row({ role: 'assistant', content: text(5) }),
      row({ role: 'user', content: text(6) }),
      row({ role: 'assistant', content: text(7) }),
      row({ role: 'user', content: 'the goal' }),
    ];
    const built = buildContext({ systemPrompt: 'You are Errand.', goal: 'the goal', rows, budgetTokens: 330 });
    expect(built.dropped.length).toBeGreaterThan(0);
    const through = built.droppedThrough!;
    // The call and its late answer are summarised together.
    const summarised = transcriptText(built.dropped, 100_000);
    expect(summarised).toContain('Errand called ask_user({})');
    expect(summarised).toContain('Tool result: the answer to q1');
    // Built again from what the summary does not cover, the request keeps every message it kept before.
    const again = buildContext({
      systemPrompt: 'You are Errand.',
      goal: 'the goal',
      rows: rows.filter((r) => r.id > through),
      budgetTokens: 10_000,
      summary: 'what came before',
    });
    const kept = built.messages.slice(1).map((m) => m.content);
    const keptAgain = again.messages.slice(1).map((m) => m.content);
    for (const content of kept)
      if (content !== null && !String(content).startsWith('the goal')) expect(keptAgain).toContain(content);
    expect(again.dropped).toEqual([]);
    expect(again.messages.some((m) => m.role === 'tool')).toBe(false);
    expect(String(again.messages[0]!.content)).toContain(
      `${SUMMARY_HEADING} (older messages are no longer shown; this is what they said):\nwhat came before`,
    );
    expect(String(again.messages.at(-1)!.content)).toContain(`"${SUMMARY_HEADING}" above`);
  });

  it('drops nothing and reports no boundary when everything fits', () => {
    const rows = [
      row({ role: 'user', content: 'hello' }),
      row({ role: 'assistant', content: 'hi' }),
      row({ role: 'user', content: 'the goal' }),
    ];
    const built = buildContext({ systemPrompt: 'You are Errand.', goal: 'the goal', rows, budgetTokens: 10_000 });
    expect(built).toMatchObject({ dropped: [], droppedThrough: null, omittedMessages: 0 });
  });
});
