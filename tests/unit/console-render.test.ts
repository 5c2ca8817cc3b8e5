import { describe, expect, it } from 'vitest';
import { displayWidth } from '../../adapters/console/display-width.js';
import { loadMarkdownRenderer } from '../../adapters/console/markdown-renderer.js';
import {
  formatElapsed,
  PLAIN_LOOK,
  renderConsoleMessage,
  renderOptions,
  renderRunEnd,
  renderWorking,
  type ConsoleLook,
} from '../../adapters/console/render.js';
import { stripControlChars, wantsColor } from '../../adapters/console/terminal-style.js';

const ESC = '\u001b';
const stripAnsi = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, '');
const MARKDOWN = [
  '# Release plan',
  '',
  'Ship **today**, see [the docs](https://example.com/docs) and run `npm test`.',
  '',
  '- check the changelog',
  '- tag the release',
  '',
  '```ts',
  'const answer = 42;',
  '```',
].join('\n');

async function terminalLook(): Promise<ConsoleLook> {
  return { color: true, markdown: await loadMarkdownRenderer(78) };
}

describe('console rendering when output is piped', () => {
  it('keeps the Markdown as written, indented under the speaker, with no escape codes', () => {
    const out = renderConsoleMessage('errand', MARKDOWN, PLAIN_LOOK);
    expect(out).not.toContain(ESC);
    expect(out.split('\n')[0]).toBe('errand:');
    expect(out).toContain('  Ship **today**, see [the docs](https://example.com/docs) and run `npm test`.');
    expect(out).toContain('  ```ts\n  const answer = 42;\n  ```');
  });

  it('shows mentions as @name and drops control characters that could steer the terminal', () => {
    const out = renderConsoleMessage(
      'errand (only you see this)',
      'Hi <@you>\u001b]0;pwned\u0007 \u001b[2Jthere',
      PLAIN_LOOK,
    );
    expect(out).toBe('errand (only you see this):\n  Hi @you]0;pwned [2Jthere');
  });

  it("numbers a question's options and says how to answer", () => {
    expect(renderOptions(['Red', 'Green'], PLAIN_LOOK)).toBe(
      '  1. Red\n  2. Green\n  (type a number or your own answer)',
    );
  });

  it('writes the working line and the end marker as plain lines', () => {
    expect(renderWorking(null)).toBe('… working — type stop to stop');
    expect(renderWorking(12_400)).toBe('… working (12 s) — type stop to stop');
    expect(renderRunEnd('done', 14_000)).toBe('── done in 14 s ──');
    expect(renderRunEnd('waiting', 8_000)).toBe('── waiting for your answer (after 8 s) ──');
  });
});

describe('console rendering on a terminal', () => {
  it('renders headings, bold, lists, code blocks and links instead of showing their syntax', async () => {
    const out = renderConsoleMessage('errand', MARKDOWN, await terminalLook());
    expect(out).toContain(ESC);
    expect(out).toContain(`${ESC}[1m${ESC}[4mRelease plan${ESC}[24m${ESC}[22m`);
    expect(out).toContain(`${ESC}[1mtoday${ESC}[22m`);
    const text = stripAnsi(out);
    expect(text).not.toContain('**');
    expect(text).not.toContain('```');
    expect(text).not.toContain('# Release');
    expect(text).toMatch(/^ {2}Release plan$/m);
    expect(text).toMatch(/^ {4}\* check the changelog$/m);
    expect(text).toMatch(/^ {4}\* tag the release$/m);
    expect(text).toMatch(/^ {4}const answer = 42;$/m);
    expect(text).toContain('the docs');
    expect(text).toContain('https://example.com/docs');
    expect(text).toContain('npm test');
  });

  it('styles the speaker and leaves every line indented under it', async () => {
    const out = renderConsoleMessage('errand (edited)', 'one\n\ntwo', await terminalLook());
    const lines = stripAnsi(out).split('\n');
    expect(lines[0]).toBe('errand (edited):');
    expect(lines.slice(1).every((l) => l.startsWith('  '))).toBe(true);
  });

  it('still removes control characters the model wrote', async () => {
    const out = renderConsoleMessage('errand', 'safe \u001b]0;title\u0007text', await terminalLook());
    expect(out).not.toContain('\u0007');
    expect(out).not.toContain(`${ESC}]`);
  });
});

describe('when the console uses colour', () => {
  it('only on a terminal, unless FORCE_COLOR or NO_COLOR say otherwise', () => {
    expect(wantsColor({ isTTY: true }, {})).toBe(true);
    expect(wantsColor({ isTTY: false }, {})).toBe(false);
    expect(wantsColor({}, {})).toBe(false);
    expect(wantsColor({ isTTY: false }, { FORCE_COLOR: '1' })).toBe(true);
    expect(wantsColor({ isTTY: false }, { FORCE_COLOR: '' })).toBe(true);
    expect(wantsColor({ isTTY: true }, { FORCE_COLOR: '0' })).toBe(false);
    expect(wantsColor({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(wantsColor({ isTTY: true }, { TERM: 'dumb' })).toBe(false);
  });
});

describe('small helpers', () => {
  it('formats elapsed time for a glance', () => {
    expect(formatElapsed(0)).toBe('0 s');
    expect(formatElapsed(14_999)).toBe('14 s');
    expect(formatElapsed(125_000)).toBe('2 min 05 s');
    expect(formatElapsed(3_780_000)).toBe('1 h 03 min');
  });

  it('counts terminal columns: wide characters two, combining marks none', () => {
    expect(displayWidth('abc')).toBe(3);
    expect(displayWidth('日本')).toBe(4);
    expect(displayWidth('🔐')).toBe(2);
    expect(displayWidth('e\u0301')).toBe(1);
  });

  it('keeps tabs and newlines when stripping control characters', () => {
    expect(stripControlChars('a\tb\nc\u0000\u009bd')).toBe('a\tb\ncd');
  });
});
