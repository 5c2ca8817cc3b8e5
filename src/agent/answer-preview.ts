import type { AnswerStream } from '../chat/chat-adapter.js';

/** The live preview of one model call's answer text, opened on the platform only once there is something to show. */
export interface AnswerPreview {
  /** Takes a text delta from the model (the LLM client's `onText`). */
  readonly onText: (delta: string) => void;
  /** The open stream, or null while nothing visible has arrived (or streaming is off). */
  stream(): AnswerStream | null;
  /** The answer will not be recorded: the preview ends marked "(stopped)", or is removed when the process is shutting down. */
  stop(how: 'stopped' | 'discard'): Promise<void>;
}

/**
 * Opens the adapter's stream on the first text that is not blank, so a step that only calls tools
 * (or a platform without streaming, or STREAMING off: no deltas come) shows nothing extra. Only the
 * model's answer text is streamed; progress notes, questions and approvals are posted as before.
 */
export function createAnswerPreview(open: (() => AnswerStream | null) | undefined): AnswerPreview {
  let stream: AnswerStream | null = null;
  // Null from `open`: the platform shows no preview after all; the answer is posted whole.
  let opener = open;
  let held = '';
  return {
    onText(delta) {
      if (!opener) return;
      if (stream) return stream.append(delta);
      held += delta;
      if (held.trim() === '') return;
      stream = opener();
      if (!stream) opener = undefined;
      else stream.append(held);
      held = '';
    },
    stream: () => stream,
    async stop(how) {
      await stream?.stop(how);
    },
  };
}
