import { breakBacktickRuns } from '../../src/chat/code-fence.js';
import { replacePairs } from './emphasis-pairs.js';

/**
 * Markdown (what the model writes) → Slack mrkdwn (what Slack renders). Slack has its own
 * dialect: `*bold*`, `_italic_`, `~strike~`, `<url|text>` links, no headings, no tables, and
 * `&`, `<`, `>` must be escaped except in Slack's own `<@U…>`/`<#C…>`/`<!here>`/`<url|…>` tokens.
 * Code fences and inline code pass through untouched apart from that escaping, and from the backtick
 * runs inside a block, broken up with zero-width joiners: Slack ends a block at the first ``` whatever
 * the opening fence, and nothing in a block can be escaped (see src/chat/code-fence.ts). Own code rather
 * than a library because the libraries escape Slack's mention tokens, which the core relies on.
 */
export function markdownToMrkdwn(markdown: string): string {
  const out: string[] = [];
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  let fence: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fenceMatch = /^\s*(`{3,}|~{3,})/.exec(line);
    if (fence !== null) {
      if (
        fenceMatch &&
        fenceMatch[1]![0] === fence[0] &&
        fenceMatch[1]!.length >= fence.length &&
        line.trim() === fenceMatch[1]
      ) {
        out.push('```');
        fence = null;
      } else out.push(breakBacktickRuns(escapeText(line)));
      continue;
    }
    if (fenceMatch) {
      fence = fenceMatch[1]!;
      // Slack shows a language tag as a first code line, so it is dropped; text after ``` on the same line stays.
      out.push('```');
      continue;
    }
    if (isTableRow(line) && isTableSeparator(lines[i + 1] ?? '')) {
      out.push('```');
      while (i < lines.length && isTableRow(lines[i]!)) out.push(breakBacktickRuns(escapeText(lines[i++]!.trim())));
      i--;
      out.push('```');
      continue;
    }
    out.push(convertLine(line));
  }
  if (fence !== null) out.push('```');
  return out.join('\n');
}

function isTableRow(line: string): boolean {
  return /^\s*\|.*\|\s*$/.test(line);
}

function isTableSeparator(line: string): boolean {
  return /^\s*\|(\s*:?-{3,}:?\s*\|)+\s*$/.test(line);
}

function convertLine(line: string): string {
  const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
  if (heading) return `*${inline(heading[1]!.replace(/\*\*|__/g, ''))}*`;
  if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) return '──────────';
  const bullet = /^(\s*)[-*+]\s+(\[[ xX]\]\s+)?(.*)$/.exec(line);
  if (bullet) {
    const depth = Math.floor(bullet[1]!.replace(/\t/g, '    ').length / 2);
    const box = bullet[2] ? (bullet[2].trim().toLowerCase() === '[x]' ? '☑ ' : '☐ ') : '';
    return `${'    '.repeat(depth)}${depth % 2 === 0 ? '•' : '◦'} ${box}${inline(bullet[3]!)}`;
  }
  const ordered = /^(\s*)(\d+)[.)]\s+(.*)$/.exec(line);
  if (ordered) return `${'    '.repeat(Math.floor(ordered[1]!.length / 2))}${ordered[2]}. ${inline(ordered[3]!)}`;
  const quote = /^\s{0,3}>\s?(.*)$/.exec(line);
  if (quote) return `> ${inline(quote[1]!)}`;
  return inline(line);
}

/** Slack's own angle-bracket tokens: user/channel/group mentions, special mentions, links. */
const SLACK_TOKEN = /<(?:[@#!][^<>\s]+|(?:https?|mailto):[^<>\s]+)>/g;
const HOLD = '\u0000';
const BOLD = '\u0001';

/** Converts inline Markdown in one line of prose. */
export function inline(text: string): string {
  const held: string[] = [];
  const hold = (s: string) => `${HOLD}${held.push(s) - 1}${HOLD}`;
  let s = text.replace(/(`+)([^`]|[^`].*?[^`])\1(?!`)/g, (m) => hold(escapeText(m)));
  s = s.replace(SLACK_TOKEN, (m) => hold(m));
  s = s.replace(
    /!?\[([^\][]*)\]\(\s*<?([^\s<>()]+(?:\([^\s()]*\))?)>?(?:\s+"[^"]*")?\s*\)/g,
    (_m, label: string, url: string) => {
      const text = label.trim().replace(/\*\*|__/g, '');
      const cleanUrl = url.replace(/\|/g, '%7C').replace(/&/g, '&amp;');
      return hold(
        text === '' || text === url ? `<${cleanUrl}>` : `<${cleanUrl}|${escapeText(text).replace(/\|/g, '¦')}>`,
      );
    },
  );
  s = s.replace(BARE_URL, (m) => {
    const end = urlEnd(m);
    return hold(escapeText(m.slice(0, end))) + m.slice(end);
  });
  s = escapeText(s);
  s = replacePairs(s, ['***', '___'], (c) => `${BOLD}_${c}_${BOLD}`);
  s = replacePairs(s, ['**', '__'], (c) => `${BOLD}${c}${BOLD}`);
  s = s.replace(/(?<![*\w])\*(?=[^\s*])([^*\n]*?[^\s*])\*(?![*\w])/g, '_$1_');
  s = replacePairs(s, ['~~'], (c) => `~${c}~`);
  s = s.replaceAll(BOLD, '*');
  return s.replace(new RegExp(`${HOLD}(\\d+)${HOLD}`, 'g'), (_m, i: string) => held[Number(i)] ?? '');
}

/**
 * A bare URL: one token, as Slack links it, so Markdown's emphasis marks inside it (`__`, `~~`, `*`) are part of the
 * address, not formatting. Random parts of a URL (a sign-in link's client id, state and code challenge, base64url)
 * hold `__` now and then; converting them broke the link.
 */
const BARE_URL = /\bhttps?:\/\/[^\s<>\u0000]+/g;
/** What GFM leaves out of an autolink's end: trailing punctuation and emphasis marks (`**https://x.test**`). */
const TRAILING = new Set(['?', '!', '.', ',', ':', ';', '*', '_', '~', "'", '"']);

/** Where a bare URL candidate ends, as GFM's extended autolinks have it; a `)` without its `(` is not part of it. */
function urlEnd(candidate: string): number {
  let opened = 0;
  let closed = 0;
  for (const ch of candidate) {
    if (ch === '(') opened++;
    else if (ch === ')') closed++;
  }
  let end = candidate.length;
  for (;;) {
    const last = candidate[end - 1]!;
    if (TRAILING.has(last)) end--;
    else if (last === ')' && closed > opened) {
      closed--;
      end--;
    } else return end;
  }
}

/** Escapes the three characters Slack treats as markup, leaving existing entities alone. */
export function escapeText(text: string): string {
  return text
    .replace(/&(?!(?:amp|lt|gt);)/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}
