import type { AnswerStream } from '../../src/chat/chat-adapter.js';
import { STOPPED_MARK } from '../../src/chat/edited-stream.js';
import type { Clock } from '../../src/clock.js';
import { isTargetGone } from '../../src/errors.js';
import type { Logger } from '../../src/logger.js';
import { platformError } from './slack-api.js';
import { neutraliseSpecialMentions } from './special-mentions.js';
import { singleFlight } from '../../src/chat/single-flight.js';

/** Slack's limit on one call's `markdown_text`. */
export const MAX_MARKDOWN_TEXT = 12_000;
/** A `<` this close to the end may open a special mention (`<!here>`) still being written: held back until it closes. */
const MENTION_LOOKBACK = 24;

export interface NativeStreamOptions {
  channelId: string;
  threadTs: string;
  /** Required by Slack outside DMs: the person the answer is for, and their team. */
  recipient: { teamId: string; userId: string } | null;
  /** One Web API call through the channel's queue; resolves with the answer's `ts` when it has one. */
  call(method: 'chat.startStream' | 'chat.appendStream' | 'chat.stopStream', args: Record<string, unknown>): Promise<{ ts?: string | undefined }>;
  /** Deletes the streamed message (`chat.delete`), when it is discarded. */
  remove(ts: string): Promise<void>;
  /** Hears of the streamed message once Slack gave its ts (see `AnswerStreamHooks`). */
  onMessage?(ts: string): Promise<void>;
  /** The preview to use when Slack refuses to stream here: one post edited with `chat.update`. */
  fallback(): AnswerStream;
  /** Least time between two calls of this stream. */
  intervalMs: number;
  clock: Clock;
  logger: Logger;
}

/** The part of `pending` that may be sent now: everything but a trailing `<…` that could still become a special mention. */
function sendable(pending: string): string {
  const open = pending.lastIndexOf('<');
  if (open >= 0 && !pending.includes('>', open) && pending.length - open < MENTION_LOOKBACK) return pending.slice(0, open);
  return pending;
}

/**
 * Slack's native streaming (`chat.startStream` → `chat.appendStream`… → `chat.stopStream`) in a
 * thread: the text since the last call is appended at most once per `intervalMs`, coalescing what
 * arrived meanwhile. When Slack refuses to start a stream here (an old workspace or token:
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

  /** Ends the wait under way at once: the answer is complete, so what the wait was coalescing goes with the last call. */
  let cutPause: (() => void) | null = null;
  const pause = (ms: number) =>
    ms <= 0
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          const done = () => {
            cutPause = null;
            resolve();
          };
          const timer = o.clock.setTimer(done, ms);
          cutPause = () => {
            o.clock.clearTimer(timer);
            done();
          };
        });
  const paced = async <T>(call: () => Promise<T>): Promise<T> => {
    await pause(lastCallAt + o.intervalMs - o.clock.now());
    try {
      return await call();
    } finally {
      lastCallAt = o.clock.now();
    }
  };
  const markdown = (chunk: string) => neutraliseSpecialMentions(chunk);

  /** Starts the stream with `chunk`; false when Slack refused and the fallback took over. */
  const start = async (chunk: string): Promise<boolean> => {
    try {
      const started = await paced(() =>
        o.call('chat.startStream', {
          channel: o.channelId,
          thread_ts: o.threadTs,
          markdown_text: markdown(chunk),
          ...(o.recipient ? { recipient_team_id: o.recipient.teamId, recipient_user_id: o.recipient.userId } : {}),
        }),
      );
      if (!started.ts) throw new Error('chat.startStream answered without a ts');
      ts = started.ts;
      sent += chunk;
      await o.onMessage?.(started.ts);
      return true;
    } catch (err) {
      if (isTargetGone(err) || platformError(err) === null) throw err;
      o.logger.info({ error: platformError(err), channel: o.channelId }, 'Slack refused to stream here; editing one post instead');
      delegate = o.fallback();
      delegate.append(text);
      return false;
    }
  };
  /**
   * Sends the text not sent yet (all of it with `whole`, else what is safe to show), in calls Slack accepts.
   * `keep` characters are left for the call that stops the stream.
   */
  const sendPending = async (whole: boolean, keep = 0) => {
    for (;;) {
      // Once the answer is complete, finish sends what is left (most often all of it with the stop).
      if (delegate || (!whole && phase !== 'open')) return;
      const pending = text.slice(sent.length, text.length - keep);
      const chunk = (whole ? pending : sendable(pending)).slice(0, MAX_MARKDOWN_TEXT);
      if (chunk === '') return;
      if (ts === null) {
        if (!(await start(chunk))) return;
        continue;
      }
      const streamTs = ts;
      await pause(lastCallAt + o.intervalMs - o.clock.now());
      if (!whole && phase !== 'open') return;
      await paced(() => o.call('chat.appendStream', { channel: o.channelId, ts: streamTs, markdown_text: markdown(chunk) }));
      sent += chunk;
      if (!whole) return;
    }
  };
  const flush = async () => {
    while (phase === 'open' && !delegate && sendable(text.slice(sent.length)) !== '') {
      await pause(lastCallAt + o.intervalMs - o.clock.now());
      if (phase !== 'open') return;
      await sendPending(false);
    }
  };
  const flusher = singleFlight(flush, (err: unknown) => o.logger.warn({ err }, 'streaming an answer to Slack failed; the finished answer still replaces it'));
  const kick = () => flusher.kick();

  return {
    append(delta) {
      if (phase !== 'open' || delta === '') return;
      text += delta;
      if (delegate) return delegate.append(delta);
      kick();
    },
    async finish(finalText, pieces) {
      if (phase === 'stopped') return [];
      phase = 'finishing';
      cutPause?.();
      await flusher.settled();
      if (delegate) return delegate.finish(finalText, pieces);
      if (!done) {
        if (!finalText.startsWith(sent)) o.logger.warn({ channel: o.channelId }, 'the streamed text is not the start of the final answer; the stream keeps what it showed');
        else text = finalText;
        // The rest of the answer rides with chat.stopStream, sent at once: waiting out the append interval
        // would only delay the end of a complete answer (the channel's queue still keeps Slack's pace).
        if (ts === null) {
          // Nothing shown yet: the stream starts with as much of the answer as one call takes.
          const first = text.slice(sent.length, sent.length + MAX_MARKDOWN_TEXT);
          if (first !== '' && !(await start(first))) return (delegate as AnswerStream | null)!.finish(finalText, pieces);
        }
        await sendPending(true, Math.min(text.length - sent.length, MAX_MARKDOWN_TEXT));
        if (delegate) return (delegate as AnswerStream).finish(finalText, pieces);
        const tail = text.slice(sent.length);
        const streamTs = ts!;
        await o.call('chat.stopStream', { channel: o.channelId, ts: streamTs, ...(tail === '' ? {} : { markdown_text: markdown(tail) }) });
        lastCallAt = o.clock.now();
        sent += tail;
        done = true;
      }
      return pieces.map(() => ts!);
    },
    async stop(how = 'stopped') {
      if (phase !== 'open') return;
      phase = 'stopped';
      cutPause?.();
      await flusher.settled();
      if (delegate) return delegate.stop(how);
      if (ts === null) return;
      const streamTs = ts;
      if (how === 'discard') {
        await paced(() => o.call('chat.stopStream', { channel: o.channelId, ts: streamTs }))
          .then(() => o.remove(streamTs))
          .catch((err: unknown) => o.logger.warn({ err }, 'removing an unfinished Slack stream failed'));
        return;
      }
      const rest = text.slice(sent.length);
      await paced(() => o.call('chat.stopStream', { channel: o.channelId, ts: streamTs, markdown_text: markdown(`${rest.trimEnd()} ${STOPPED_MARK}`) })).catch((err: unknown) =>
        o.logger.warn({ err }, 'marking a stopped Slack stream failed'),
      );
    },
  };
}
