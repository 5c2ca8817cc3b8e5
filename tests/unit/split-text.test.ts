import { describe, expect, it } from 'vitest';
import { splitText } from '../../src/chat/split-text.js';

const fences = (s: string) => (s.match(/```/g) ?? []).length;

describe('splitText', () => {
  it('leaves short text alone', () => {
    expect(splitText('hello', 100)).toEqual(['hello']);
  });

  it('splits at paragraph boundaries before lines and words', () => {
    const para = (n: number) => `${'a'.repeat(30)} paragraph ${n}`;
    const pieces = splitText([para(1), para(2), para(3)].join('\n\n'), 100);
    expect(pieces).toEqual([`${para(1)}\n\n${para(2)}`, para(3)]);
  });

  it('never breaks a word unless the word alone is over the limit', () => {
    const text = Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ');
    const pieces = splitText(text, 50);
    for (const p of pieces) expect(p.length).toBeLessThanOrEqual(50);
    expect(pieces.join(' ').split(' ')).toEqual(text.split(' '));
    const long = splitText('x'.repeat(120), 50);
    expect(long.join('')).toBe('x'.repeat(120));
  });

  it('closes and reopens a code block that does not fit, with its language', () => {
    const code = Array.from({ length: 40 }, (_, i) => `const v${i} = ${i};`).join('\n');
    const pieces = splitText(`Here:\n\n\`\`\`ts\n${code}\n\`\`\`\nAfter.`, 200);
    expect(pieces.length).toBeGreaterThan(2);
    for (const p of pieces) {
      expect(p.length).toBeLessThanOrEqual(200);
      expect(fences(p) % 2).toBe(0);
    }
    const inside = pieces.filter((p) => p.includes('const v'));
    for (const p of inside) expect(p.startsWith('```ts\n') || p.includes('\n```ts\n')).toBe(true);
    const lines = pieces
      .join('\n')
      .split('\n')
      .filter((l) => l.startsWith('const v'));
    expect(lines).toEqual(code.split('\n'));
    expect(pieces.at(-1)).toContain('After.');
  });

  it('closes a fence the model left open', () => {
    const pieces = splitText(`${'intro '.repeat(20)}\n\n\`\`\`\n${'x = 1\n'.repeat(30)}`, 100);
    for (const p of pieces) expect(fences(p) % 2).toBe(0);
  });
});
