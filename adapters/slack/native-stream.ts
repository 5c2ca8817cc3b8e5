import type { AnswerStream } from '../../src/chat/chat-adapter.js';
import { STOPPED_MARK } from '../../src/chat/edited-stream.js';
import { isTargetGone } from '../../src/errors.js';
import { platformError } from './slack-api.js';
import { neutraliseSpecialMentions } from './special-mentions.js';
import { singleFlight } from '../../src/chat/single-flight.js';
import { createTaskCards, type StreamChunk } from './task-cards.js';
import type { NativeStreamOptions } from './native-stream-options.js';

export type { NativeStreamOptions, StreamSteps } from './native-stream-options.js';

/** Slack's limit on one call's `markdown_text`. */
export const MAX_MARKDOWN_TEXT = 12_000;
/** Errors that say the stream itself is over, not that its chunks were refused. */
const STREAM_OVER = new Set(['message_not_in_streaming_state', 'message_not_found', 'ratelimited']);

/** A `<` this close to the end may open a special mention (`<!here>`) still being written: held back until it closes. */
const MENTION_LOOKBACK = 24;

/** The part of `pending` that may be sent now: everything but a trailing `<…` that could still become a special mention. */
function sendable(pending: string): string {
  const open = pending.lastIndexOf('<');
  if (open >= 0 && !pending.includes('>', open) && pending.length - open < MENTION_LOOKBACK)
    return pending.slice(0, open);
  return pending;
}

/**
 * Slack's native streaming (`chat.startStream` → `chat.appendStream`… → `chat.stopStream`) in a
 * thread: the text since the last call is appended at most once per `intervalMs`, coalescing what
 * arrived meanwhile; the end goes at once, with the text not sent yet, in `chat.stopStream`. With
 * `steps`, the run's steps go along as `task_update` chunks (each card when it changed, in the same
 * paced calls, the text after them as a `markdown_text` chunk); every card still open is closed by the
 * stop, so none is left spinning. A workspace that refuses chunks is remembered (`steps.refuse`) and the
 * stream goes on with text alone. When Slack refuses to start a stream here (an old workspace or token:
 * `unknown_method`, `not_allowed_token_type`; a channel type without streaming:
 * `method_not_supported_for_channel_type`; anything else it says no to) the preview continues as one
 * post edited with `chat.update` instead. A channel that is gone is not a refusal: it fails the stream.
 */
export function createNativeStream(o: NativeStreamOptions): AnswerStream {
  let text = '';
  let sent = '';
  let ts: string | null = null;
  let delegate: AnswerStream | null = null;
  let phase: 'open' | 'finishing' | 'stopped' = 'open';
  let done = false;
  let lastCallAt = Number.NEGATIVE_INFINITY;
  /** Slack ended the stream itself (Slack's Stop on the session, or its time limit): appends and its end fail there. */
  let outside = false;
  const endedOutside = () => outside || (ts !== null && o.stoppedOutside?.(ts) === true);
  /** True (and remembered) when `err` says the stream is no longer streaming: Slack ended it. */
  const noteOutside = (err: unknown) => {
    if (ts === null || platformError(err) !== 'message_not_in_streaming_state') return false;
    outside = true;
    return true;
  };

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
  const markdown = (chunk: string) => neutraliseSpecialMentions(chunk);

  const cards = o.steps && !o.steps.refused() ? createTaskCards() : null;
  const chunkRefusal = (err: unknown) =>
    !isTargetGone(err) && platformError(err) !== null && !STREAM_OVER.has(platformError(err)!);
  /**
   * One call with the cards that changed and `md` (Markdown, may be empty): as `chunks` while the workspace takes
   * them, else as `markdown_text` alone. Null when nothing was left to send (`chat.stopStream` always goes).
   */
  const callWith = async (
    method: 'chat.startStream' | 'chat.appendStream' | 'chat.stopStream',
    base: Record<string, unknown>,
    md: string,
    withCards: Record<string, unknown> = {},
  ) => {
    const updates = cards && !o.steps!.refused() ? cards.take() : [];
    if (updates.length > 0) {
      const chunks: StreamChunk[] = [...updates, ...(md === '' ? [] : [{ type: 'markdown_text' as const, text: md }])];
      try {
        return await o.call(method, { ...base, ...withCards, chunks });
      } catch (err) {
        if (!chunkRefusal(err)) throw err;
        o.logger.info(
          { error: platformError(err), channel: o.channelId },
          'Slack refused task cards here; the status line shows the steps instead',
        );
        o.steps!.refuse();
        cards!.drop();
      }
    }
    if (md === '' && method !== 'chat.stopStream') return null;
    return o.call(method, { ...base, ...(md === '' ? {} : { markdown_text: md }) });
  };

  /** Starts the stream with `chunk` (and the cards so far); false when nothing started (the fallback took over, or only refused cards were due). */
  const start = async (chunk: string): Promise<boolean> => {
    try {
      const slot = await o.beforeMessage?.();
      const started = await paced(() =>
        callWith(
          'chat.startStream',
          {
            channel: o.channelId,
            thread_ts: o.threadTs,
            ...(o.recipient ? { recipient_team_id: o.recipient.teamId, recipient_user_id: o.recipient.userId } : {}),
          },
          markdown(chunk),
          { task_display_mode: o.steps?.mode },
        ),
      );
      if (started === null) return false;
      if (!started.ts) throw new Error('chat.startStream answered without a ts');
      ts = started.ts;
      sent += chunk;
      await slot?.posted(started.ts);
      return true;
    } catch (err) {
      if (isTargetGone(err) || platformError(err) === null) throw err;
      o.logger.info(
        { error: platformError(err), channel: o.channelId },
        'Slack refused to stream here; editing one post instead',
      );
      delegate = o.fallback();
      delegate.append(text);
      return false;
    }
  };
  /**
   * Sends the text not sent yet (all of it with `whole`, else what is safe to show), in calls Slack
   * accepts. `leaveLast`: once the stream is started, the last call's worth is left for `chat.stopStream`.
   */
  const sendPending = async (whole: boolean, leaveLast = false) => {
    for (;;) {
      if (delegate || endedOutside()) return;
      const pending = text.slice(sent.length);
      const chunk = (whole ? pending : sendable(pending)).slice(0, MAX_MARKDOWN_TEXT);
      const cardsDue = cards?.pending() === true;
      if (chunk === '' && !cardsDue) return;
      if (leaveLast && ts !== null && chunk === pending) return;
      if (ts === null) {
        if (!(await start(chunk))) return;
        // Text that arrived while the stream started waits for the flusher's next turn, whose wait a finish cuts
        // short: a paced append here would hold a complete answer's end for the whole interval.
        if (!whole) return;
        continue;
      }
      const streamTs = ts;
      const append = () => callWith('chat.appendStream', { channel: o.channelId, ts: streamTs }, markdown(chunk));
      // The answer's first text under the cards goes at once, as a stream's first call does: cards must not delay it.
      try {
        await (sent === '' && chunk !== '' ? append().finally(() => (lastCallAt = o.clock.now())) : paced(append));
      } catch (err) {
        if (noteOutside(err)) return;
        throw err;
      }
      sent += chunk;
      if (!whole) return;
    }
  };
  /** Ends the flusher's wait for the next append early: the answer is finishing (or stopped), and the end is not paced. */
  let wake: (() => void) | null = null;
  const untilNextAppend = (ms: number) =>
    ms <= 0
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          const timer = o.clock.setTimer(() => resolve(), ms);
          wake = () => {
            o.clock.clearTimer(timer);
            resolve();
          };
        }).finally(() => (wake = null));
  const flush = async () => {
    while (
      phase === 'open' &&
      !delegate &&
      !endedOutside() &&
      (sendable(text.slice(sent.length)) !== '' || cards?.pending() === true)
    ) {
      const firstText = sent === '' && sendable(text) !== '';
      await untilNextAppend(firstText ? 0 : lastCallAt + o.intervalMs - o.clock.now());
      if (phase !== 'open') return;
      await sendPending(false);
    }
  };
  const flusher = singleFlight(flush, (err: unknown) =>
    o.logger.warn({ err }, 'streaming an answer to Slack failed; the finished answer still replaces it'),
  );
  const kick = () => flusher.kick();

  const stream: AnswerStream = {
    append(delta) {
      if (phase !== 'open' || delta === '') return;
      text += delta;
      if (delegate) return delegate.append(delta);
      kick();
    },
    async finish(finalText, pieces) {
      if (phase === 'stopped') return [];
      phase = 'finishing';
      wake?.();
      await flusher.settled();
      if (delegate) return delegate.finish(finalText, pieces);
      if (!done && !endedOutside()) {
        try {
          if (!finalText.startsWith(sent))
            o.logger.warn(
              { channel: o.channelId },
              'the streamed text is not the start of the final answer; the stream keeps what it showed',
            );
          else text = finalText;
          cards?.close('done');
          await sendPending(true, true);
          if (delegate) return (delegate as AnswerStream).finish(finalText, pieces);
          if (!endedOutside()) {
            const streamTs = ts!;
            const last = text.slice(sent.length);
            // Not paced like the appends: chat.stopStream ends the message once (its own per-workspace tier, not the
            // one-message-a-second-per-channel rule of chat.postMessage), so the answer ends as soon as it is written.
            await callWith('chat.stopStream', { channel: o.channelId, ts: streamTs }, markdown(last));
            sent = text;
            lastCallAt = o.clock.now();
            done = true;
          }
        } catch (err) {
          if (!noteOutside(err)) throw err;
        }
      }
      if (!done && endedOutside()) {
        // Slack stopped this stream, yet the run went on (someone who may not stop it pressed Stop): what it
        // showed stays, and the answer is posted anew below it (the caller posts when the finish shows nothing).
        phase = 'stopped';
        return [];
      }
      return pieces.map(() => ts!);
    },
    async stop(how = 'stopped') {
      if (phase !== 'open') return;
      phase = 'stopped';
      wake?.();
      await flusher.settled();
      if (delegate) return delegate.stop(how);
      if (ts === null) return;
      const streamTs = ts;
      if (how === 'discard') {
        try {
          // A stream Slack ended already needs only its deletion.
          if (!endedOutside()) {
            await o.call('chat.stopStream', { channel: o.channelId, ts: streamTs }).catch((err: unknown) => {
              if (!noteOutside(err)) throw err;
            });
          }
          await o.remove(streamTs);
        } catch (err) {
          o.logger.warn({ err }, 'removing an unfinished Slack stream failed');
        }
        return;
      }
      // Slack ended it already: what it showed stays as it is.
      if (endedOutside()) return;
      const rest = text.slice(sent.length);
      cards?.close(how);
      // A stream that showed only steps (the run went on elsewhere) ends as it is; a stopped one says so.
      const end = how === 'done' ? rest : `${rest.trimEnd()} ${STOPPED_MARK}`;
      await callWith('chat.stopStream', { channel: o.channelId, ts: streamTs }, markdown(end)).catch((err: unknown) => {
        if (!noteOutside(err)) o.logger.warn({ err }, 'ending a Slack stream failed');
      });
    },
  };
  if (cards) {
    stream.showSteps = (steps) => {
      if (phase !== 'open' || o.steps!.refused() || endedOutside()) return;
      cards.update(steps);
      if (!delegate) kick();
    };
  }
  return stream;
}
