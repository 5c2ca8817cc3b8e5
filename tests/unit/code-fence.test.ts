import { describe, expect, it } from 'vitest';
import { markdownToMrkdwn } from '../../adapters/slack/mrkdwn.js';
import { toMessageBodies } from '../../adapters/discord/message-bodies.js';
import { approvalText, MAX_ARGS_SHOWN } from '../../src/agent/approval-text.js';
import {
  breakBacktickRuns,
  codeBlock,
  longestBacktickRun,
  withUnbreakableFences,
  ZERO_WIDTH_JOINER as ZWJ,
} from '../../src/chat/code-fence.js';
import { splitText } from '../../src/chat/split-text.js';

/** The CommonMark reading of a fenced block: the content between the opening fence and the first line that closes it. */
function commonMarkBlock(markdown: string): { content: string; after: string } {
  const lines = markdown.split('\n');
  const open = /^(`{3,})/.exec(lines[0]!)![1]!;
  const close = lines.findIndex((l, i) => i > 0 && new RegExp(`^\`{${open.length},}\\s*$`).test(l));
  return { content: lines.slice(1, close).join('\n'), after: lines.slice(close + 1).join('\n') };
}

const hostile = 'a\n```\n*forged* text\n````\nb ``````` c\n`';

describe('code blocks their content cannot close', () => {
  it('CommonMark: the fence is longer than any backtick run inside, so the content comes back exactly', () => {
    expect(longestBacktickRun(hostile)).toBe(7);
    const block = codeBlock(hostile, 'json');
    expect(block.startsWith('````````json\n')).toBe(true);
    expect(commonMarkBlock(`${block}\nafter`)).toEqual({ content: hostile, after: 'after' });
    expect(codeBlock('plain')).toBe('```\nplain\n```');
  });

  it('splitting a long block keeps the long fence on every piece, so no piece can be closed from inside', () => {
    const content = Array.from({ length: 60 }, (_, i) => (i % 3 === 0 ? '```' : `line ${i} \`\`\`\` x`)).join('\n');
    const pieces = splitText(`Look:\n${codeBlock(content, 'json')}\nDone.`, 200);
    expect(pieces.length).toBeGreaterThan(2);
    const inside: string[] = [];
    for (const piece of pieces) {
      expect(piece.length).toBeLessThanOrEqual(200);
      const at = piece.indexOf('`````json\n');
      if (at < 0) continue;
      const { content: part, after } = commonMarkBlock(piece.slice(at));
      inside.push(part);
      expect(['', 'Done.']).toContain(after.trim());
    }
    expect(inside.join('\n')).toBe(content);
  });

  it('Slack and Discord: backtick runs of three or more inside a block are broken with zero-width joiners, shorter ones stay', () => {
    expect(breakBacktickRuns('x ``` y `` z ````')).toBe(`x \`${ZWJ}\`${ZWJ}\` y \`\` z \`${ZWJ}\`${ZWJ}\`${ZWJ}\``);
    const slack = markdownToMrkdwn(`before\n${codeBlock(hostile, 'json')}\nafter **bold**`);
    expect(slack.split('```')).toHaveLength(3);
    expect(slack.split('```')[1]!.replaceAll(ZWJ, '')).toBe(`\n${hostile}\n`);
    expect(slack.endsWith('after *bold*')).toBe(true);
    const discord = toMessageBodies({ text: `before\n${codeBlock(hostile, 'json')}\nafter` })[0]!.content;
    expect(discord.split('```')).toHaveLength(3);
    expect(discord.split('```')[1]!.replaceAll(ZWJ, '')).toBe(`json\n${hostile}\n`);
  });

  it('withUnbreakableFences: ~~~ and long fences become ```, an unclosed block is closed, an inline ```x``` line is not a fence', () => {
    expect(withUnbreakableFences('~~~~py\n```\n~~~~\nout')).toBe(`\`\`\`py\n\`${ZWJ}\`${ZWJ}\`\n\`\`\`\nout`);
    expect(withUnbreakableFences('````\nopen')).toBe('```\nopen\n```');
    expect(withUnbreakableFences('```x``` is inline')).toBe('```x``` is inline');
  });
});

describe('the approval text', () => {
  const call = (args: unknown) => ({ arguments: JSON.stringify(args) });

  it('shows arguments whole up to MAX_ARGS_SHOWN characters, in a block they cannot close', () => {
    const text = `${'``` '.repeat(2000)}end`;
    const shown = approvalText('files__write', call({ text }));
    expect(shown).toContain('\n````json\n');
    const block = shown.slice(shown.indexOf('````json'));
    const { content, after } = commonMarkBlock(block);
    expect(JSON.parse(content)).toEqual({ text });
    expect(after).toBe('Allow it? Reply **allow** (once), **always** (this tool in this conversation) or **deny**.');
  });

  it('past MAX_ARGS_SHOWN shows the head and the tail, says how many characters are between and how long the arguments are', () => {
    const text = Array.from({ length: 3000 }, (_, i) => `word${i}`).join(' ');
    const pretty = JSON.stringify({ text }, null, 2);
    expect(pretty.length).toBeGreaterThan(MAX_ARGS_SHOWN);
    const shown = approvalText('files__write', call({ text }));
    const count = (n: number) => n.toLocaleString('en-US');
    expect(shown).toContain(
      `with arguments of ${count(pretty.length)} characters, too long to show whole: here are the first 8,000 and the last 4,000.`,
    );
    expect(shown).toContain(`*… ${count(pretty.length - 12_000)} characters not shown …*`);
    const [head, tail] = shown
      .split('```json\n')
      .slice(1)
      .map((part) => part.slice(0, part.indexOf('\n```')));
    expect(head).toBe(pretty.slice(0, 8000));
    expect(tail).toBe(pretty.slice(-4000));
  });

  it('arguments that are not JSON are shown as the model wrote them', () => {
    expect(approvalText('x__y', { arguments: 'not json ```' })).toContain('\n````\nnot json ```\n````\n');
  });
});
