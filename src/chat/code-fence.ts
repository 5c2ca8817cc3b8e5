/**
 * Code blocks that text inside them cannot close. Two rules meet here:
 * - CommonMark (the Markdown the core writes, the console renders): a fenced block ends only at a
 *   line holding a fence of the same character at least as long as the opening one, so a fence
 *   longer than every backtick run in the content cannot be closed from inside.
 * - Slack mrkdwn and Discord: a block ends at the first ``` anywhere, whatever the opening fence, and
 *   nothing inside a block can be escaped (a backslash shows as itself). There, every run of three or
 *   more backticks inside a block is broken up with a zero-width joiner: it looks the same, and
 *   copying it gives the backticks with invisible joiners between them.
 */

/** Invisible, and joins rather than breaks: placed between backticks it keeps them from counting as a fence. */
export const ZERO_WIDTH_JOINER = '\u200d';

/** Length of the longest run of backticks in `text` (0 when there is none). */
export function longestBacktickRun(text: string): number {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return longest;
}

/**
 * A CommonMark fenced code block holding `content` exactly: the fence is one backtick longer than the
 * longest run inside (at least three), so no line of the content can end the block early.
 */
export function codeBlock(content: string, info = ''): string {
  const fence = '`'.repeat(Math.max(3, longestBacktickRun(content) + 1));
  return `${fence}${info}\n${content}\n${fence}`;
}

/** Breaks every run of three or more backticks with zero-width joiners: "```" → "`\u200d`\u200d`". */
export function breakBacktickRuns(text: string): string {
  return text.replace(/`{3,}/g, (run) => run.split('').join(ZERO_WIDTH_JOINER));
}

/**
 * Rewrites a Markdown text's fenced code blocks for a dialect where ``` anywhere ends a block
 * (Discord): each block gets a plain ``` fence (with its language) and the backtick runs inside it
 * are broken up, so what a block holds can neither end it nor forge text after it. An unclosed block
 * is closed at the end. Text outside blocks is left alone.
 */
export function withUnbreakableFences(markdown: string): string {
  const out: string[] = [];
  let fence: string | null = null;
  for (const line of markdown.split('\n')) {
    const match = /^\s*(`{3,}|~{3,})(.*)$/.exec(line);
    if (fence === null) {
      if (match && !(match[1]![0] === '`' && match[2]!.includes('`'))) {
        fence = match[1]!;
        out.push(`\`\`\`${match[2]!.trim()}`);
      } else out.push(line);
      continue;
    }
    if (match && match[1]![0] === fence[0] && match[1]!.length >= fence.length && match[2]!.trim() === '') {
      out.push('```');
      fence = null;
    } else out.push(breakBacktickRuns(line));
  }
  if (fence !== null) out.push('```');
  return out.join('\n');
}
