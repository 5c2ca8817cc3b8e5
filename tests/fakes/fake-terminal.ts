import { PassThrough, Writable } from 'node:stream';
import { displayWidth } from '../../adapters/console/display-width.js';

/**
 * A terminal screen for the console adapter's tests: a writable stream that says it is a TTY and
 * keeps what a real terminal would show, interpreting the escape sequences readline and the adapter
 * write (cursor moves, clear line, clear screen down; colours are dropped). Lines wrap at `columns`,
 * newlines move to the start of the next row (as a terminal in raw mode with ONLCR does).
 */
export class FakeTerminal extends Writable {
  readonly isTTY = true;
  readonly rows = 40;
  /** Everything ever written, escape codes included. */
  raw = '';
  private readonly cells: string[][] = [[]];
  private row = 0;
  private col = 0;

  constructor(readonly columns = 80) {
    super({ decodeStrings: false });
  }

  override _write(chunk: Buffer | string, _enc: BufferEncoding, done: (err?: Error | null) => void): void {
    const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    this.raw += text;
    this.feed(text);
    done();
  }

  /** The screen as text, one string per row, trailing spaces and empty trailing rows removed. */
  screen(): string[] {
    const lines = this.cells.map((r) => r.join('').replace(/\s+$/, ''));
    while (lines.length > 0 && lines.at(-1) === '') lines.pop();
    return lines;
  }

  /** The row and column of the cursor (rows counted from the first row ever written). */
  cursor(): { row: number; col: number } {
    return { row: this.row, col: this.col };
  }

  private line(row: number): string[] {
    while (this.cells.length <= row) this.cells.push([]);
    return this.cells[row]!;
  }

  private feed(text: string): void {
    for (let i = 0; i < text.length;) {
      const ch = text[i]!;
      if (ch === '\u001b') {
        const csi = /^\u001b\[([0-9;?]*)([A-Za-z])/.exec(text.slice(i));
        if (csi) {
          this.control(csi[2]!, csi[1] ? csi[1].split(';').map(Number) : []);
          i += csi[0].length;
        } else {
          const osc = /^\u001b\][^\u0007]*(\u0007|\u001b\\)/.exec(text.slice(i));
          i += osc ? osc[0].length : 2;
        }
        continue;
      }
      const cp = String.fromCodePoint(text.codePointAt(i)!);
      i += cp.length;
      if (cp === '\r') this.col = 0;
      else if (cp === '\n') {
        this.row += 1;
        this.col = 0;
      } else this.put(cp);
    }
  }

  private put(ch: string): void {
    const width = displayWidth(ch);
    if (width === 0) return;
    if (this.col + width > this.columns) {
      this.row += 1;
      this.col = 0;
    }
    const line = this.line(this.row);
    while (line.length < this.col) line.push(' ');
    line[this.col] = ch;
    if (width === 2) line[this.col + 1] = '';
    this.col += width;
  }

  private control(final: string, params: number[]): void {
    const n = params[0] ?? 0;
    switch (final) {
      case 'A':
        this.row = Math.max(0, this.row - (n || 1));
        break;
      case 'B':
        this.row += n || 1;
        break;
      case 'C':
        this.col = Math.min(this.columns - 1, this.col + (n || 1));
        break;
      case 'D':
        this.col = Math.max(0, this.col - (n || 1));
        break;
      case 'G':
        this.col = Math.max(0, (n || 1) - 1);
        break;
      case 'K': {
        const line = this.line(this.row);
        if (n === 0) line.splice(this.col);
        else if (n === 1) for (let c = 0; c <= this.col && c < line.length; c++) line[c] = ' ';
        else line.length = 0;
        break;
      }
      case 'J':
        if (n === 0) {
          this.line(this.row).splice(this.col);
          this.cells.splice(this.row + 1);
        }
        break;
      default:
        // Colours (m) and modes (h/l) do not change what the screen shows as text.
        break;
    }
  }
}

/** A keyboard for the console: a readable stream that says it is a TTY (raw mode is a no-op). */
export class FakeKeyboard extends PassThrough {
  readonly isTTY = true;
  isRaw = false;

  setRawMode(mode: boolean): this {
    this.isRaw = mode;
    return this;
  }

  /** Types text; `\r` is Enter. */
  type(text: string): void {
    this.write(text);
  }
}
