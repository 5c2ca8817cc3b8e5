import { describe, expect, it } from 'vitest';
import type { LlmTool } from '../../src/agent/llm-client.js';
import { estimateTokens, estimateToolTokens } from '../../src/agent/token-estimate.js';

const tool = (name: string, description: string): LlmTool => ({
  name,
  description,
  parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
});

describe('estimateToolTokens', () => {
  it('counts the tool definitions as the estimate of their JSON does', () => {
    const specs = [
      tool('send_update', 'Post a short progress message.'),
      tool('ask_user', 'Ask the person a question — and wait.'),
      tool('x', ''),
    ];
    for (const list of [[], specs.slice(0, 1), specs])
      expect(estimateToolTokens(list)).toBe(estimateTokens(JSON.stringify(list)));
  });

  it('gives the same figure for the same definitions run after run, and follows a new definition', () => {
    const specs = [tool('a', 'first'), tool('b', 'second')];
    const first = estimateToolTokens(specs);
    expect(estimateToolTokens(specs)).toBe(first);
    const longer = [...specs, tool('c', 'a third tool with a much longer description than the others have')];
    expect(estimateToolTokens(longer)).toBe(estimateTokens(JSON.stringify(longer)));
    expect(estimateToolTokens(longer)).toBeGreaterThan(first);
  });
});
