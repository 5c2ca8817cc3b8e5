import type { AnswerStream } from '../chat/chat-adapter.js';
import type { Logger } from '../logger.js';

/** An answer whose rows are delivered by finishing its live preview rather than by new posts. */
export interface StreamedAnswer {
  readonly stream: AnswerStream;
  readonly text: string;
  /** The rows of the answer, in order, with the text each stands for. */
  readonly rows: readonly { readonly id: number; readonly text: string }[];
}

/**
 * Answers streamed by this process, by the id of each of their rows. In memory on purpose: after a
 * restart the preview is gone with the process, and the rows are posted anew.
 */
export class StreamedAnswers {
  private readonly byRow = new Map<number, StreamedAnswer>();

  constructor(private readonly logger: Logger) {}

  /** These rows (one answer, in order) are delivered by finishing `stream`. */
  add(answer: StreamedAnswer): void {
    for (const r of answer.rows) this.byRow.set(r.id, answer);
  }

  /** The streamed answer row `id` belongs to, if any. */
  get(id: number): StreamedAnswer | undefined {
    return this.byRow.get(id);
  }

  /** Forgets the answer (it was finished, or is posted as usual after all). */
  forget(answer: StreamedAnswer): void {
    for (const r of answer.rows) this.byRow.delete(r.id);
  }

  /** The preview of a row that will not be delivered ends as it is, marked stopped. */
  stop(id: number): void {
    const answer = this.byRow.get(id);
    if (!answer) return;
    this.forget(answer);
    answer.stream.stop().catch((err: unknown) => this.logger.warn({ err, outboxId: id }, 'stopping an answer preview failed'));
  }

  /** Removes every preview left (shutdown): the next start posts their rows anew, or the answer would show twice. */
  async discardAll(): Promise<void> {
    const left = new Set(this.byRow.values());
    this.byRow.clear();
    await Promise.allSettled([...left].map((a) => a.stream.stop('discard')));
  }
}
