import { clearScreenDown, cursorTo, moveCursor, type Interface } from 'node:readline';
import type { Writable } from 'node:stream';
import { displayWidth } from './display-width.js';

/** Where the console writes: finished lines, a prompt the user types at, and a live status line. */
export interface ConsoleScreen {
  /** Prints finished lines (a message, a marker) above the prompt, never on the prompt's line. */
  print(text: string): void;
  /** Sets the status line shown under the prompt (null: none). */
  status(text: string | null): void;
  /** The user pressed Enter; the prompt comes back at once, below their line. */
  lineEntered(): void;
  /** Takes the prompt and the status line off the screen (the console is closing). */
  clear(): void;
}

/** A pipe or a log: lines as they come, no prompt, no status line, nothing redrawn. */
export function createPlainScreen(out: Writable): ConsoleScreen {
  return {
    print: (text) => void out.write(`${text}\n`),
    status: () => {},
    lineEntered: () => {},
    clear: () => {},
  };
}

/** The status line cut to fit one row (its style dropped then): a wrapped status would break the redraw's arithmetic. */
function fitStatus(status: string, columns: number): string {
  const plain = status.replace(/\u001b\[[0-9;]*m/g, '');
  if (displayWidth(plain) < columns) return status;
  return `${[...plain].slice(0, Math.max(0, columns - 2)).join('')}…`;
}

/**
 * The rows readline believes its cursor is below the prompt's start (`prevRows`, a plain property it
 * has kept since Node 0.x but does not document). It differs from `getCursorPos().rows` after typed
 * text wrapped without a redraw; readline's own redraw moves up by this number, so the console must too.
 */
function believedRows(rl: Interface): number {
  const rows: unknown = (rl as unknown as { prevRows?: unknown }).prevRows;
  return typeof rows === 'number' ? rows : rl.getCursorPos().rows;
}

/**
 * A terminal, with readline in terminal mode: the bottom of the screen is the region "prompt and what
 * the user is typing, then the status line". Printing erases that region, writes the text where the
 * prompt was, and draws the region again below it with the half-typed input intact, so the bot's lines
 * and the prompt never share a line.
 */
export function createTerminalScreen(rl: Interface, out: Writable & { columns?: number }): ConsoleScreen {
  let statusText: string | null = null;
  let drawn = false;
  // readline redraws by first moving up the rows it believes the cursor is below the prompt's start;
  // after an erase the redraw starts that many rows further down, so it lands where the region was.
  let rowsToSkip = 0;
  const columns = () => Math.max(1, out.columns ?? 80);

  const erase = () => {
    if (!drawn) return;
    moveCursor(out, 0, -rl.getCursorPos().rows);
    rowsToSkip = believedRows(rl);
    cursorTo(out, 0);
    clearScreenDown(out);
    drawn = false;
  };

  const draw = () => {
    if (rowsToSkip > 0) out.write('\n'.repeat(rowsToSkip));
    rowsToSkip = 0;
    rl.prompt(true);
    drawn = true;
    if (statusText === null) return;
    const cursor = rl.getCursorPos();
    const down = Math.floor(displayWidth(`${rl.getPrompt()}${rl.line}`) / columns()) - cursor.rows;
    if (down > 0) moveCursor(out, 0, down);
    out.write(`\n${fitStatus(statusText, columns())}`);
    moveCursor(out, 0, -(down + 1));
    cursorTo(out, cursor.cols);
  };

  return {
    print(text) {
      erase();
      out.write(`${text}\n`);
      draw();
    },
    status(text) {
      statusText = text;
      erase();
      draw();
    },
    lineEntered() {
      // readline has written the line and moved to the row below it: the old status line, if any.
      cursorTo(out, 0);
      clearScreenDown(out);
      drawn = false;
      rowsToSkip = 0;
      draw();
    },
    clear() {
      erase();
      rowsToSkip = 0;
    },
  };
}
