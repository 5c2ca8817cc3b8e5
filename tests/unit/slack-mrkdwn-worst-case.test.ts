import { describe, expect, it } from 'vitest';
import { replacePairs } from '../../adapters/slack/emphasis-pairs.js';
import { markdownToMrkdwn } from '../../adapters/slack/mrkdwn.js';

/**
 * Lines of half a million characters full of openers that never close. A scan from every opener
 * to the end of the line (quadratic) needs minutes for these; a linear pass needs milliseconds,
 * so each case finishing inside vitest's default timeout shows the conversion is linear.
 */
const UNCLOSED = 128_000;

describe('Markdown → mrkdwn on hostile long lines', () => {
  it.each([
    ['unclosed __ bold', '__a '],
    ['unclosed ** bold', '**a '],
    ['unclosed *** bold italic', '***a '],
    ['unclosed ~~ strike', '~~a '],
    ['unclosed [ link label', '[a '],
    ['unclosed ` code', '``a `'],
  ])('converts a line of %s openers without stalling', (_name, unit) => {
    const line = unit.repeat(UNCLOSED);
    const out = markdownToMrkdwn(line);
    expect(out.length).toBeGreaterThanOrEqual(line.length / 2);
  });

  it('converts one bare URL of half a million characters ending in unbalanced parentheses without stalling', () => {
    const url = `https://x.test/${'a__('.repeat(UNCLOSED / 2)}${')'.repeat(UNCLOSED)}`;
    expect(markdownToMrkdwn(`see ${url} now`)).toBe(`see ${url} now`);
  });

  it('pairs each opener with the nearest closer after it, like a lazy match', () => {
    const wrap = (c: string) => `<${c}>`;
    expect(replacePairs('__a __b__ c__', ['__'], wrap)).toBe('<a __b> c__');
    expect(replacePairs('** not** **yes** x', ['**'], wrap)).toBe(
      '** not<** > yes** x'.replace('<** > yes** x', '** <yes> x'),
    );
    expect(replacePairs('~~a\nb~~', ['~~'], wrap)).toBe('~~a\nb~~');
    expect(replacePairs('***x*** and ___y___', ['***', '___'], wrap)).toBe('<x> and <y>');
    expect(replacePairs('***x___', ['***', '___'], wrap)).toBe('***x___');
  });
});
