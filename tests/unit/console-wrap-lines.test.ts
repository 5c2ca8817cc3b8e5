import { describe, expect, it } from 'vitest';
import { wrapLines } from '../../adapters/console/wrap-lines.js';

describe('wrapping console text to the terminal', () => {
  it('leaves lines that fit alone', () => {
    expect(wrapLines('short line\n\n  * item', 20)).toBe('short line\n\n  * item');
  });

  it('wraps a paragraph at word boundaries', () => {
    expect(wrapLines('one two three four five six', 13)).toBe('one two three\nfour five six');
  });

  it('continues a list item under its text, past the bullet', () => {
    expect(wrapLines('  * check the changelog before tagging', 20)).toBe(
      '  * check the\n    changelog before\n    tagging',
    );
    expect(wrapLines('  12. check the changelog', 16)).toBe('  12. check the\n      changelog');
  });

  it('does not count escape codes as width', () => {
    const bold = (s: string) => `\u001b[1m${s}\u001b[22m`;
    expect(wrapLines(`${bold('alpha')} beta ${bold('gamma')}`, 10)).toBe(`${bold('alpha')} beta\n${bold('gamma')}`);
  });

  it('leaves a word longer than the line for the terminal to break', () => {
    expect(wrapLines('see https://example.com/a/very/long/path ok', 12)).toBe(
      'see\nhttps://example.com/a/very/long/path\nok',
    );
  });
});
