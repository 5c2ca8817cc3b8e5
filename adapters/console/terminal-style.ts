/** The environment variables that decide colour, as the `FORCE_COLOR`/`NO_COLOR` conventions name them. */
export interface ColorEnv {
  readonly FORCE_COLOR?: string | undefined;
  readonly NO_COLOR?: string | undefined;
  readonly TERM?: string | undefined;
}

/**
 * Whether to write ANSI escape codes: only to a terminal, so piped output stays plain text a log or
 * another program can read. `FORCE_COLOR` (anything but `0`/`false`) turns them on anywhere, `NO_COLOR` off.
 */
export function wantsColor(stream: { readonly isTTY?: boolean }, env: ColorEnv): boolean {
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  if (env.NO_COLOR) return false;
  return stream.isTTY === true && env.TERM !== 'dumb';
}

/** Wraps text in one SGR attribute and its reset, so styles nest without resetting each other. */
export type Style = (text: string) => string;

const sgr =
  (open: number, close: number): Style =>
  (text) =>
    `\u001b[${open}m${text}\u001b[${close}m`;

/** The few styles the console uses, written out so colour never depends on what a library guesses about stdout. */
export const ansi = {
  bold: sgr(1, 22),
  dim: sgr(2, 22),
  italic: sgr(3, 23),
  underline: sgr(4, 24),
  strike: sgr(9, 29),
  cyan: sgr(36, 39),
  yellow: sgr(33, 39),
  blue: sgr(34, 39),
  green: sgr(32, 39),
  gray: sgr(90, 39),
} as const satisfies Record<string, Style>;

/** Leaves text as it is: the style of plain output. */
export const unstyled: Style = (text) => text;

// C0 controls but tab and newline, DEL and C1 controls: escape sequences start with them.
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;

/**
 * Removes control characters from text that came from the model, a tool or a person, so it can
 * never move the cursor, retitle the window or hide lines in the user's terminal.
 */
export function stripControlChars(text: string): string {
  return text.replace(CONTROL, '');
}
