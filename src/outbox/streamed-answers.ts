import type { AnswerStream } from '../chat/chat-adapter.js';
import type { Logger } from '../logger.js';
import type { OutboxStore } from '../store/outbox-store.js';
import { INTERRUPTED_PREVIEW_MARK } from './preview-retraction.js';

/** An answer whose rows are delivered by finishing its live preview rather than by new posts. */
export interface StreamedAnswer {
  readonly stream: AnswerStream;
  readonly text: string;
  /** The run whose preview this is (its preview messages are recorded under it), null for none. */
  readonly runId: string | null;
  /** The rows of the answer, in order, with the text each stands for. */
  readonly rows: readonly { readonly id: number; readonly text: string }[];
}

/**
 * Answers streamed by this process, by the id of each of their rows. In memory on purpose: after a
 * restart the preview is gone with the process, and the rows are posted anew.
 */
export class StreamedAnswers {
  private readonly byRow = new Map<number, StreamedAnswer>();
  /** Answers discarded at shutdown: a finish that returns after it must not mark their rows posted. */
  private readonly discarded = new WeakSet<StreamedAnswer>();

  constructor(
    private readonly logger: Logger,
    private readonly store: Pick<OutboxStore, 'retractPreviews'>,
  ) {}

  /** These rows (one answer, in order) are delivered by finishing `stream`. */
  add(answer: StreamedAnswer): void {
    for (const r of answer.rows) this.byRow.set(r.id, answer);
  }

  /** The streamed answer row `id` belongs to, if any. */
  get(id: number): StreamedAnswer | undefined {
    return this.byRow.get(id);
  }

  /** Whether the answer was discarded at shutdown: its rows are left pending, posted anew after the restart. */
  wasDiscarded(answer: StreamedAnswer): boolean {
    return this.discarded.has(answer);
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
    answer.stream
      .stop()
      .catch((err: unknown) => this.logger.warn({ err, outboxId: id }, 'stopping an answer preview failed'));
  }

  /**
   * Removes every preview left (shutdown), waiting at most `graceMs` for it: the next start posts their rows anew,
   * or the answer would show twice. A preview may be half way through its finish (rolling over into new
   * messages), and the removal may not complete before the process ends: so its messages are first recorded
   * to be taken back (pending `retract` rows, the way an interrupted run's preview is), which the next start
   * does before it posts the answer (a retraction goes first), whatever this process managed.
   */
  async discardAll(graceMs: number): Promise<void> {
    const left = new Set(this.byRow.values());
    this.byRow.clear();
    const discards = [...left].map(async (answer) => {
      this.discarded.add(answer);
      // Called before the retraction is recorded: the stream makes no new message (and record) after this.
      const removed = answer.stream.stop('discard');
      if (answer.runId !== null) {
        await this.store
          .retractPreviews(answer.runId, INTERRUPTED_PREVIEW_MARK)
          .catch((err: unknown) =>
            this.logger.warn({ err, runId: answer.runId }, 'recording an answer preview to take back failed'),
          );
      }
      this.logger.info(
        { runId: answer.runId, outboxIds: answer.rows.map((r) => r.id) },
        'shutting down before an answer preview was finished: it is taken back and the answer posted after the restart',
      );
      await removed;
    });
    let timeout: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled(discards), new Promise<void>((r) => (timeout = setTimeout(r, graceMs)))]);
    clearTimeout(timeout);
  }
}
