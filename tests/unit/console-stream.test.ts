import { describe, expect, it } from 'vitest';
import { completeBlocksEnd, createConsoleStream } from '../../adapters/console/console-stream.js';

function stream() {
  const printed: string[] = [];
  const s = createConsoleStream({
    print: (t) => printed.push(t),
    header: 'errand:',
    record: () => 'out-1',
    renderBlocks: (md) => `<${md}>`,
  });
  return { s, printed };
}

describe('the console stream on a colour terminal', () => {
  it('prints each Markdown block rendered as soon as it is complete, the rest when the answer is finished', async () => {
    const { s, printed } = stream();
    s.append('First **para');
    expect(printed).toEqual([]);
    s.append('graph**.\n\n- one\n');
    expect(printed).toEqual(['errand:', '<First **paragraph**.>']);
    s.append('- two\n\nLast.');
    expect(printed).toEqual(['errand:', '<First **paragraph**.>', '<- one\n- two>']);
    expect(await s.finish('First **paragraph**.\n\n- one\n- two\n\nLast.', ['x'])).toEqual(['out-1']);
    expect(printed).toEqual(['errand:', '<First **paragraph**.>', '<- one\n- two>', '<Last.>']);
  });

  it('keeps a code block whole across its blank lines, and a stop ends the text with (stopped)', async () => {
    const { s, printed } = stream();
    s.append('```sh\necho a\n\necho b\n');
    expect(printed).toEqual([]);
    s.append('```\n\nThen');
    expect(printed).toEqual(['errand:', '<```sh\necho a\n\necho b\n```>']);
    await s.stop();
    expect(printed.at(-1)).toBe('<Then (stopped)>');
  });

  it('finds where complete blocks end', () => {
    expect(completeBlocksEnd('no blank line yet')).toBe(0);
    expect(completeBlocksEnd('a\n\nb')).toBe(3);
    expect(completeBlocksEnd('```\nx\n\ny')).toBe(0);
  });
});
