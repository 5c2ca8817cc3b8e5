/** What was cut, named in the note the model reads. */
export type CutKind = 'result' | 'message';

function groupDigits(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ' ');
}

function cutNote(cutChars: number, kind: CutKind): string {
  return `[… ${groupDigits(cutChars)} characters cut: ${kind} too long for the context]`;
}

/**
 * Shortens `text` to at most `maxChars` characters (never below the length of the note itself:
 * a text shorter than its note stays whole),
 * keeping its beginning and ending with a note that says how much was cut, so the model knows
 * it saw only part of a tool result or message and can ask for less (a filter, a smaller page).
 */
export function cutText(text: string, maxChars: number, kind: CutKind): string {
  if (text.length <= maxChars || text.length <= cutNote(text.length, kind).length) return text;
  let keep = Math.max(0, maxChars - cutNote(text.length, kind).length - 1);
  const last = text.charCodeAt(keep - 1);
  if (keep > 0 && last >= 0xd800 && last <= 0xdbff) keep--;
  const note = cutNote(text.length - keep, kind);
  return keep > 0 ? `${text.slice(0, keep)}\n${note}` : note;
}

/** True when `text` was produced by `cutText` (tests and diagnostics). */
export function wasCut(text: string): boolean {
  return /\[… [\d ]+ characters cut: (result|message) too long for the context\]$/.test(text);
}

/**
 * The largest length L such that cutting every text to L (shorter ones stay whole) keeps the
 * total within `availableChars`: big contents are cut to the same level, small ones are spared.
 */
export function fairCutLevel(lengths: readonly number[], availableChars: number): number {
  const sorted = [...lengths].sort((a, b) => a - b);
  let remaining = Math.max(0, availableChars);
  for (let k = 0; k < sorted.length; k++) {
    const left = sorted.length - k;
    const length = sorted[k]!;
    if (length * left > remaining) return Math.floor(remaining / left);
    remaining -= length;
  }
  return Number.POSITIVE_INFINITY;
}
