import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { AnswerStream, PreviewMessageSlot } from './chat-adapter.js';
import { singleFlight } from './single-flight.js';

/** What ends the text of a preview that was stopped (or cut by a failure) before the answer was complete. */
export const STOPPED_MARK = '(stopped)';

export interface EditedStreamOptions {
  /** Posts a new message (Markdown) in the conversation with its idempotency key; resolves with its platform id. Goes through the channel's queue. */
  post(text: string, key: string | null): Promise<string>;
  /** Replaces a posted message's text. Goes through the channel's queue. */
  edit(id: string, text: string): Promise<void>;
  /** Deletes a preview message the final answer does not need (its split came out shorter). */
  remove(id: string): Promise<void>;
  /** Records each message the preview is about to post, before the post leaves (see `AnswerStreamHooks`). */
  beforeMessage?(): Promise<PreviewMessageSlot>;
  /** The adapter's own split (`Delivery.render`), so the preview rolls over where the answer will be split. */
  render(text: string): readonly string[];
  /** Least time between two platform calls of this preview (Slack: 1 s, Discord: 1.5 s). */
  intervalMs: number;
  clock: Clock;
  logger: Logger;
}

/**
 * An answer preview for platforms without native streaming: the first text is posted at once, then
 * the same message is edited, at most one call per `intervalMs`; appends that arrive meanwhile are
 * coalesced into the next edit. Where `render` splits the text it continues in a new message,
 * split exactly like a long answer. `finish` edits the messages to the final pieces (posting or
 * deleting the difference), so the finished answer is the same messages a plain post would have made.
 */
export function createEditedStream(o: EditedStreamOptions): AnswerStream {
  let text = '';
  const ids: string[] = [];
  const shown: string[] = [];
  let phase: 'open' | 'finishing' | 'stopped' = 'open';
  let lastCallAt = Number.NEGATIVE_INFINITY;
  let dirty = false;
  /** Set by `stop('discard')` while finishing: the finish makes no further platform call. */
  let discarded = false;
  /** The finish under way, settled (awaited by a discard that cuts it short). */
  let finishing: Promise<unknown> = Promise.resolve();

  const pause = (ms: number) =>
    ms <= 0 ? Promise.resolve() : new Promise<void>((resolve) => o.clock.setTimer(resolve, ms));
  const paced = async <T>(call: () => Promise<T>): Promise<T> => {
    await pause(lastCallAt + o.intervalMs - o.clock.now());
    try {
      return await call();
    } finally {
      lastCallAt = o.clock.now();
    }
  };

  /** Makes the messages show `pieces`; `exact` also deletes messages past the last piece. Ends early once `cut()`. */
  const render = async (pieces: readonly string[], exact: boolean, cut: () => boolean = () => false) => {
    for (const [i, piece] of pieces.entries()) {
      if (cut()) return;
      const id = ids[i];
      if (id === undefined) {
        const slot = await o.beforeMessage?.();
        const posted = await paced(() => o.post(piece, slot?.key ?? null));
        ids.push(posted);
        shown.push(piece);
        await slot?.posted(posted);
      } else if (shown[i] !== piece) {
        await paced(() => o.edit(id, piece));
        shown[i] = piece;
      }
    }
    while (exact && ids.length > pieces.length && !cut()) {
      const id = ids.at(-1)!;
      await paced(() => o.remove(id));
      ids.pop();
      shown.pop();
    }
  };
  const split = (t: string) => (t.trim() === '' ? [] : o.render(t));

  const flush = async () => {
    while (phase === 'open' && dirty) {
      await pause(lastCallAt + o.intervalMs - o.clock.now());
      if (phase !== 'open') return;
      dirty = false;
      await render(split(text), false);
    }
  };
  const flusher = singleFlight(flush, (err: unknown) =>
    o.logger.warn({ err }, 'updating an answer preview failed; the finished answer still replaces it'),
  );
  const kick = () => flusher.kick();

  return {
    append(delta) {
      if (phase !== 'open' || delta === '') return;
      text += delta;
      dirty = true;
      kick();
    },
    async finish(_text, pieces) {
      if (phase === 'stopped') return [];
      phase = 'finishing';
      const run = (async () => {
        await flusher.settled();
        await render(pieces, true, () => discarded);
      })();
      finishing = run.catch(() => undefined);
      await run;
      // Discarded meanwhile (the process is shutting down): the answer is not shown, its rows stay to post.
      return discarded ? [] : pieces.map((_, i) => ids[i]!);
    },
    async stop(how = 'stopped') {
      if (phase === 'finishing' && how === 'discard') {
        // Shutting down while the finish rolls over: it stops before its next call, and what it showed goes.
        phase = 'stopped';
        discarded = true;
        await finishing;
        await render([], true).catch((err: unknown) =>
          o.logger.warn({ err }, 'removing an unfinished answer preview failed'),
        );
        return;
      }
      if (phase !== 'open') return;
      phase = 'stopped';
      await flusher.settled();
      if (how === 'discard') {
        await render([], true).catch((err: unknown) =>
          o.logger.warn({ err }, 'removing an unfinished answer preview failed'),
        );
        return;
      }
      if (text.trim() === '' || how === 'done') return;
      await render(split(`${text.trimEnd()} ${STOPPED_MARK}`), false).catch((err: unknown) =>
        o.logger.warn({ err }, 'marking a stopped answer preview failed'),
      );
    },
  };
}
