import { displayWidth } from './display-width.js';

const SGR = /\u001b\[[0-9;]*m/g;
/** What continues a list item or an indented line: its leading spaces and bullet or number. */
const HANGING = /^ *(?:[*•-] |\d+\. )?/;

/**
 * Word-wraps styled terminal text to `width` columns, continuing each wrapped line under the start
 * of its text (past its indent and bullet), so a long list item or paragraph stays in its column
 * instead of running back to the screen's left edge. Escape codes take no room; a word wider than
 * the line is left for the terminal to break.
 */
export function wrapLines(text: string, width: number): string {
  return text
    .split('\n')
    .map((line) => wrapLine(line, width))
    .join('\n');
}

function wrapLine(line: string, width: number): string {
  const visible = (s: string) => displayWidth(s.replace(SGR, ''));
  if (visible(line) <= width) return line;
  const lead = /^ */.exec(line)![0];
  const hanging = Math.min(HANGING.exec(line.replace(SGR, ''))![0].length, Math.floor(width / 2));
  const rows: string[] = [];
  let row = lead;
  let used = lead.length;
  let empty = true;
  for (const word of line.slice(lead.length).split(' ')) {
    const w = visible(word);
    if (!empty && used + 1 + w > width) {
      rows.push(row);
      row = ' '.repeat(hanging) + word;
      used = hanging + w;
      continue;
    }
    row += empty ? word : ` ${word}`;
    used += empty ? w : w + 1;
    empty = false;
  }
  rows.push(row);
  return rows.join('\n');
}
