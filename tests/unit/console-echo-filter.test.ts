import { describe, expect, it } from 'vitest';
import { createEchoFilter } from '../../adapters/console/echo-filter.js';
import { renderConsoleMessage, renderOptions, renderRunEnd, renderWorking } from '../../adapters/console/render.js';

/** The lines of `input` the console would take as a person's. */
function kept(input: string): string[] {
  const fromBot = createEchoFilter();
  return input.split('\n').filter((line) => !fromBot(line));
}

describe('console echo filter', () => {
  it("drops a bot's printed message, its options and the console's status lines; keeps the person's lines around them", () => {
    const printed = [
      renderConsoleMessage('errand', 'Shall I go on?\n\n```\ncode\n```'),
      renderOptions(['Yes', 'No']),
      renderWorking(12_000),
      renderRunEnd('waiting', 8000),
      renderConsoleMessage('errand (only you see this)', 'Only for you.'),
      renderConsoleMessage('errand (edited)', 'Edited.'),
    ].join('\n');
    expect(kept(`  indented first\n${printed}\nbye\n  indented after`)).toEqual([
      '  indented first',
      'bye',
      '  indented after',
    ]);
  });

  it('drops a message printed in colour', () => {
    const look = { color: true, markdown: null };
    expect(kept(`${renderConsoleMessage('errand', 'Hi', look)}\nnext`)).toEqual(['next']);
  });

  it('keeps what a person writes that only looks a little like it', () => {
    expect(kept('errand: do this\nErrand:\nmy errand:\n  indented')).toEqual([
      'errand: do this',
      'Errand:',
      'my errand:',
      '  indented',
    ]);
  });
});
