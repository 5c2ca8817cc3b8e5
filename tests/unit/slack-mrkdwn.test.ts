import { describe, expect, it } from 'vitest';
import { markdownToMrkdwn } from '../../adapters/slack/mrkdwn.js';

describe('Markdown → Slack mrkdwn', () => {
  it.each([
    ['**bold** and __bold__', '*bold* and *bold*'],
    ['*italic* and _italic_', '_italic_ and _italic_'],
    ['***both***', '*_both_*'],
    ['~~gone~~', '~gone~'],
    ['see [the docs](https://example.com/a?b=1&c=2)', 'see <https://example.com/a?b=1&amp;c=2|the docs>'],
    ['![chart](https://example.com/c.png)', '<https://example.com/c.png|chart>'],
    ['[https://x.test](https://x.test)', '<https://x.test>'],
    ['# Title', '*Title*'],
    ['### **Sub** title ###', '*Sub title*'],
    ['- one\n- two\n  - nested', '• one\n• two\n    ◦ nested'],
    ['* star item\n+ plus item', '• star item\n• plus item'],
    ['- [ ] todo\n- [x] done', '• ☐ todo\n• ☑ done'],
    ['1. first\n2) second', '1. first\n2. second'],
    ['> quoted **text**', '> quoted *text*'],
    ['a < b && c > d', 'a &lt; b &amp;&amp; c &gt; d'],
    ['already &amp; escaped', 'already &amp; escaped'],
    ['hi <@U123ABC> and <#C0123|general> <!here>', 'hi <@U123ABC> and <#C0123|general> <!here>'],
    ['use `**not bold**` and `a<b`', 'use `**not bold**` and `a&lt;b`'],
    ['---', '──────────'],
    ['2 * 3 * 4 = 24', '2 * 3 * 4 = 24'],
    ['snake_case_name stays', 'snake_case_name stays'],
  ])('%j → %j', (input, expected) => {
    expect(markdownToMrkdwn(input)).toBe(expected);
  });

  // A bare URL is one token, as Slack links it: Markdown's emphasis marks inside it are part of the address. A sign-in
  // link's random client id, state and code challenge (base64url) hold `__` now and then; converted, the link broke.
  it.each([
    [
      'Connect linear: http://127.0.0.1:4000/authorize?client_id=dcr__x__y&state=a~~b~~c&code_challenge=p*q*r',
      'Connect linear: http://127.0.0.1:4000/authorize?client_id=dcr__x__y&amp;state=a~~b~~c&amp;code_challenge=p*q*r',
    ],
    ['https://x.test/a__b and https://x.test/c__d', 'https://x.test/a__b and https://x.test/c__d'],
    ['**https://x.test/a__b** is bold', '*https://x.test/a__b* is bold'],
    ['_see https://x.test/a_b_', '_see https://x.test/a_b_'],
    ['see https://x.test/a__b.', 'see https://x.test/a__b.'],
    ['(at https://x.test/wiki/A_(b)) __done__', '(at https://x.test/wiki/A_(b)) *done*'],
    ['a <https://x.test/a__b|link> stays', 'a <https://x.test/a__b|link> stays'],
  ])('leaves a bare URL whole: %j → %j', (input, expected) => {
    expect(markdownToMrkdwn(input)).toBe(expected);
  });

  it('keeps code blocks verbatim (escaped), drops the language tag and closes an unclosed fence', () => {
    expect(markdownToMrkdwn('```ts\nconst a = **b** < c;\n```\nafter **x**')).toBe(
      '```\nconst a = **b** &lt; c;\n```\nafter *x*',
    );
    expect(markdownToMrkdwn('```\nopen forever')).toBe('```\nopen forever\n```');
  });

  it('renders tables as preformatted text', () => {
    expect(markdownToMrkdwn('| a | b |\n|---|---|\n| 1 | 2 |\nafter')).toBe(
      '```\n| a | b |\n|---|---|\n| 1 | 2 |\n```\nafter',
    );
  });
});
