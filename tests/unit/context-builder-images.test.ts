import { describe, expect, it } from 'vitest';
import { buildContext } from '../../src/agent/context-builder.js';
import { IMAGE_TOKENS, estimateRequestTokens } from '../../src/agent/token-estimate.js';
import type { ImagePart, MessageRow } from '../../src/db/schema.js';

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
const image = (name: string): ImagePart => ({ name, url: 'data:image/png;base64,iVBORw0KGgo=' });

describe('images in the context', () => {
  it('counts each image as a fixed number of tokens', () => {
    const text = estimateRequestTokens([{ role: 'user', content: 'look' }]);
    expect(estimateRequestTokens([{ role: 'user', content: 'look', images: [image('a.png'), image('b.png')] }])).toBe(
      text + 2 * IMAGE_TOKENS,
    );
  });

  it("keeps the goal's images with it, from its transcript row", () => {
    const rows = [row({ role: 'user', content: 'what is this?', images: [image('a.png')] })];
    const { messages } = buildContext({ systemPrompt: 'sys', goal: 'what is this?', rows, budgetTokens: 16_000 });
    expect(messages[1]).toEqual({ role: 'user', content: 'what is this?', images: [image('a.png')] });
  });

  it('sends the goal images it is given even when the goal row is no longer among the rows read', () => {
    const rows = [row({ role: 'assistant', content: 'Looking.' })];
    const { messages } = buildContext({
      systemPrompt: 'sys',
      goal: 'what is this?',
      goalImages: [image('a.png')],
      rows,
      budgetTokens: 16_000,
    });
    expect(messages[1]).toEqual({ role: 'user', content: 'what is this?', images: [image('a.png')] });
  });

  it('makes room for the goal images by dropping older turns, not the images', () => {
    const older = [
      row({ role: 'user', content: 'earlier request '.repeat(40) }),
      row({ role: 'assistant', content: 'earlier answer '.repeat(40) }),
    ];
    const goal = row({ role: 'user', content: 'compare these', images: [image('a.png'), image('b.png')] });
    const withoutImages = buildContext({
      systemPrompt: 'sys',
      goal: 'compare these',
      rows: [...older, { ...goal, images: null }],
      budgetTokens: 600,
    });
    expect(withoutImages.omittedMessages).toBe(0);
    const built = buildContext({
      systemPrompt: 'sys',
      goal: 'compare these',
      rows: [...older, goal],
      budgetTokens: 2 * IMAGE_TOKENS + 600,
    });
    expect(built.messages.find((m) => m.role === 'user' && m.content.startsWith('compare these'))).toMatchObject({
      images: [image('a.png'), image('b.png')],
    });
    expect(built.estimatedTokens).toBeLessThanOrEqual(2 * IMAGE_TOKENS + 600);
    const tight = buildContext({
      systemPrompt: 'sys',
      goal: 'compare these',
      rows: [...older, goal],
      budgetTokens: 2 * IMAGE_TOKENS + 100,
    });
    expect(tight.omittedMessages).toBe(2);
    expect(tight.messages[1]).toMatchObject({ role: 'user', images: [image('a.png'), image('b.png')] });
  });

  it('ignores stored images that are not image data URLs', () => {
    const rows = [row({ role: 'user', content: 'hi', images: [{ name: 'x', url: 'javascript:alert(1)' }] })];
    const { messages } = buildContext({ systemPrompt: 'sys', goal: 'hi', rows, budgetTokens: 16_000 });
    expect(messages[1]).toEqual({ role: 'user', content: 'hi' });
  });
});
