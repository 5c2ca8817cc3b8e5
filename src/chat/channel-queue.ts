import { isTargetGone, type TargetGoneError } from '../errors.js';

/** Sends one platform call within the channel's rate limit (waiting, retrying 429s as the pacer decides). */
export type PacedSend = <R>(call: () => Promise<R>) => Promise<R>;

/** How a platform paces the calls of one channel; `S` is its per-channel bookkeeping. */
export interface ChannelPacer<S> {
  create(): S;
  send<R>(state: S, call: () => Promise<R>): Promise<R>;
  /** True when the state holds nothing worth keeping (nothing recent, nothing blocked): it may be forgotten. */
  idle(state: S): boolean;
}

export interface OutboundQueue {
  /**
   * Runs `job` after every job queued before it for the same channel (FIFO), so the pieces of a
   * long reply are never interleaved with another post. Each call the job makes through `send`
   * is paced for the channel; a failed job does not block the next, except when it failed because
   * the channel is gone for good (TargetGoneError): the jobs already queued behind it then reject
   * with that same error without calling the platform. Once the channel's queue has emptied, a new
   * job tries again (the bot may have been invited back).
   */
  enqueue<T>(channelId: string, job: (send: PacedSend) => Promise<T>): Promise<T>;
  /** Resolves once every job queued so far has settled. */
  drain(): Promise<void>;
}

interface Channel<S> {
  tail: Promise<void>;
  pending: number;
  state: S;
  /** Set when a job found the channel gone; the jobs queued behind it fail with it. */
  gone: TargetGoneError | null;
}

const SWEEP_AT = 1024;

/**
 * The per-channel FIFO every adapter needs: bursts are delayed, never dropped and never
 * reordered. Idle channels are forgotten, so memory stays flat across many channels.
 * `beforeCall`, when given, is awaited right before each platform call (and each retry) to a
 * channel, after the pacer's own wait: the pacing shared with other processes.
 */
export function createChannelQueue<S>(
  pacer: ChannelPacer<S>,
  beforeCall?: (channelId: string) => Promise<void>,
): OutboundQueue {
  const channels = new Map<string, Channel<S>>();
  const all = new Set<Promise<void>>();

  const channelOf = (id: string): Channel<S> => {
    let c = channels.get(id);
    if (!c) {
      if (channels.size >= SWEEP_AT)
        for (const [key, other] of channels) if (other.pending === 0 && pacer.idle(other.state)) channels.delete(key);
      c = { tail: Promise.resolve(), pending: 0, state: pacer.create(), gone: null };
      channels.set(id, c);
    }
    return c;
  };

  return {
    enqueue(channelId, job) {
      const c = channelOf(channelId);
      c.pending++;
      const send: PacedSend = beforeCall
        ? (call) => pacer.send(c.state, () => beforeCall(channelId).then(call))
        : (call) => pacer.send(c.state, call);
      const result = c.tail.then(() => (c.gone ? Promise.reject(c.gone) : job(send)));
      const settled = result.then(
        () => undefined,
        (err: unknown) => {
          if (isTargetGone(err)) c.gone = err;
        },
      );
      c.tail = settled;
      all.add(settled);
      void settled.then(() => {
        all.delete(settled);
        c.pending--;
        if (c.pending === 0) c.gone = null;
        if (c.pending === 0 && pacer.idle(c.state) && channels.get(channelId) === c) channels.delete(channelId);
      });
      return result;
    },
    async drain() {
      while (all.size > 0) await Promise.all([...all]);
    },
  };
}
