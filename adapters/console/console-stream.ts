import type { AnswerStream } from '../../src/chat/chat-adapter.js';
import { STOPPED_MARK } from '../../src/chat/edited-stream.js';
import { stripControlChars } from './terminal-style.js';

export interface ConsoleStreamOptions {
  /** Prints finished lines above the prompt. */
  print(text: string): void;
  /** The speaker line that opens the answer (`errand:`, styled like other messages). */
  header: string;
  /** Keeps the finished answer in the session's transcript; returns its id. */
  record(text: string): string;
  /**
   * Renders a run of whole Markdown blocks for the terminal, indented (a colour terminal). With it the
   * answer is printed a block at a time — each paragraph, list or code block as soon as it is complete —
   * so it is both rendered and shown as it comes; without it, line by line as written.
   */
  renderBlocks?(markdown: string): string;
}

/**
 * Where the text's complete Markdown blocks end: after the last blank line that is outside a code
 * fence (a fence's blank lines belong to it). 0 when no block is complete yet.
 */
export function completeBlocksEnd(text: string): number {
  let end = 0;
  let inFence = false;
  let at = 0;
  for (const line of text.split('\n')) {
    const next = at + line.length + 1;
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    else if (!inFence && line.trim() === '' && next <= text.length) end = next;
    at = next;
  }
  return end;
}

/**
 * An answer printed as the model writes it: the speaker line at the first text, then each line (or,
 * on a colour terminal, each rendered Markdown block) as soon as it is complete, indented like every
 * message. A terminal cannot take back printed lines, so nothing is printed twice; `finish` prints
 * the rest and keeps the whole answer in the transcript, `stop` ends the text with "(stopped)".
 */
export function createConsoleStream(o: ConsoleStreamOptions): AnswerStream {
  let line = '';
  let opened = false;
  let phase: 'open' | 'done' | 'stopped' = 'open';
  let id: string | null = null;
  const emit = (text: string) => {
    if (!opened) {
      o.print(o.header);
      opened = true;
    }
    o.print(`  ${stripControlChars(text)}`);
  };
  const render = o.renderBlocks;
  const emitBlocks = (markdown: string) => {
    if (!render || markdown.trim() === '') return;
    if (!opened) {
      o.print(o.header);
      opened = true;
    }
    o.print(render(markdown.replace(/\n+$/, '')));
  };
  return {
    append(delta) {
      if (phase !== 'open') return;
      if (render) {
        line += delta;
        const end = completeBlocksEnd(line);
        if (end > 0) {
          emitBlocks(line.slice(0, end));
          line = line.slice(end);
        }
        return;
      }
      const lines = (line + delta).split('\n');
      line = lines.pop() ?? '';
      for (const l of lines) emit(l);
    },
    async finish(text, pieces) {
      if (phase === 'stopped') return [];
      if (phase === 'open') {
        if (render) emitBlocks(line);
        else if (line !== '') emit(line);
        line = '';
        phase = 'done';
        id = o.record(text);
      }
      return pieces.map(() => id!);
    },
    async stop(how = 'stopped') {
      if (phase !== 'open') return;
      phase = 'stopped';
      // Printed lines cannot be taken back: a discarded answer is marked like a stopped one.
      if (how === 'discard' && !opened) return;
      if (how === 'done' && line === '') return;
      if (render) {
        emitBlocks(`${line.trimEnd()} ${STOPPED_MARK}`.trimStart());
        line = '';
        return;
      }
      emit(`${line.trimEnd()} ${STOPPED_MARK}`.trimStart());
      line = '';
    },
  };
}
