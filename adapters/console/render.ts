import type { MarkdownRenderer } from './markdown-renderer.js';
import { wrapLines } from './wrap-lines.js';
import { ansi, stripControlChars, unstyled, type Style } from './terminal-style.js';

/** How console output looks: colour and Markdown on a terminal, plain text when piped. */
export interface ConsoleLook {
  readonly color: boolean;
  /** Renders Markdown for the terminal; null prints the Markdown source as it is (readable as plain text). */
  readonly markdown: MarkdownRenderer | null;
  /** Columns to word-wrap a message's text to (under its two-space indent); null leaves lines as they are. */
  readonly wrapWidth?: number | null;
}

/** Output for a pipe or a log: no escape codes, Markdown left as written. */
export const PLAIN_LOOK: ConsoleLook = { color: false, markdown: null };

/** Platform mention syntax (`<@id>`, as core notices write it) shown the way a terminal reader expects: `@id`. */
const MENTION = /<@([A-Za-z0-9_.-]+)>/g;

const style = (look: ConsoleLook, s: Style): Style => (look.color ? s : unstyled);
const indent = (text: string) =>
  text
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');

/**
 * Formats one chat message for the terminal: a speaker line (`errand`, `errand (edited)` …), then the
 * text indented by two spaces, mentions readable, control characters removed. On a terminal the
 * Markdown is rendered (headings, lists, code blocks, bold, links); otherwise it stays as written.
 */
export function renderConsoleMessage(speaker: string, text: string, look: ConsoleLook = PLAIN_LOOK): string {
  const source = stripControlChars(text.replace(MENTION, '@$1'));
  const rendered = look.markdown ? look.markdown(source) : source;
  const body = look.wrapWidth ? wrapLines(rendered, look.wrapWidth) : rendered;
  const space = speaker.indexOf(' ');
  const name = space < 0 ? speaker : speaker.slice(0, space);
  const note = space < 0 ? '' : style(look, ansi.dim)(speaker.slice(space));
  return `${style(look, (t) => ansi.bold(ansi.cyan(t)))(name)}${note}:\n${indent(body)}`;
}

/** A question's options as a numbered list, since the terminal has no buttons: the user types the number. */
export function renderOptions(labels: readonly string[], look: ConsoleLook = PLAIN_LOOK): string {
  const lines = labels.map((label, i) => `  ${i + 1}. ${stripControlChars(label)}`);
  return [...lines, style(look, ansi.dim)('  (type a number or your own answer)')].join('\n');
}

/** Elapsed time the way a person reads it at a glance: `14 s`, `2 min 05 s`, `1 h 03 min`. */
export function formatElapsed(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  if (total < 60) return `${total} s`;
  const minutes = Math.floor(total / 60);
  if (minutes < 60) return `${minutes} min ${String(total % 60).padStart(2, '0')} s`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}

/** The working line: with the elapsed time once there is some, and how to stop. */
export function renderWorking(elapsedMs: number | null, look: ConsoleLook = PLAIN_LOOK): string {
  const time = elapsedMs === null ? '' : ` (${formatElapsed(elapsedMs)})`;
  return style(look, ansi.dim)(`… working${time} — type stop to stop`);
}

/** How a run left the console: finished, or parked on a question the user still has to answer. */
export type RunEnd = 'done' | 'waiting';

/** The thin line that closes a run, so the next prompt is clearly the user's turn. */
export function renderRunEnd(end: RunEnd, elapsedMs: number, look: ConsoleLook = PLAIN_LOOK): string {
  const what =
    end === 'done'
      ? `done in ${formatElapsed(elapsedMs)}`
      : `waiting for your answer (after ${formatElapsed(elapsedMs)})`;
  return style(look, ansi.gray)(`── ${what} ──`);
}

/** One step of a run as it changed (a tool call started, ended, or waits on the user): a dim, indented line. */
export function renderStep(line: string, look: ConsoleLook = PLAIN_LOOK): string {
  return style(look, ansi.dim)(`  ${stripControlChars(line)}`);
}
