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
}

/**
 * An answer printed as the model writes it: the speaker line at the first text, then each line as
 * soon as it is complete, indented like every message. A terminal cannot take back printed lines,
 * so the streamed text stays as printed (Markdown as written, not rendered); `finish` prints the last
 * line and keeps the whole answer in the transcript, `stop` ends the line with "(stopped)".
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
  return {
    append(delta) {
      if (phase !== 'open') return;
      const lines = (line + delta).split('\n');
      line = lines.pop() ?? '';
      for (const l of lines) emit(l);
    },
    async finish(text, pieces) {
      if (phase === 'stopped') return [];
      if (phase === 'open') {
        if (line !== '') emit(line);
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
      emit(`${line.trimEnd()} ${STOPPED_MARK}`.trimStart());
      line = '';
    },
  };
}

/** A stream that shows nothing until the answer is complete, then posts it whole (the console's rendered look). */
export function wholeAnswer(post: (text: string) => Promise<{ id: string }>): AnswerStream {
  let stopped = false;
  return {
    append: () => {},
    async finish(text, pieces) {
      if (stopped) return [];
      const { id } = await post(text);
      return pieces.map(() => id);
    },
    async stop() {
      stopped = true;
    },
  };
}
