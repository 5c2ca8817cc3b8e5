/** Discord allows about 5 messages per 5 seconds in one channel. */
export const DISCORD_MESSAGE_LIMIT = { count: 5, windowMs: 5000 } as const;

/** Sends one message: waits for a free slot in the channel's window, then runs the REST call. */
export type PacedSend = <R>(call: () => Promise<R>) => Promise<R>;

export interface OutboundQueue {
  /**
   * Runs `job` after every job queued before it for the same channel (FIFO), so the pieces of a
   * long reply are never interleaved with another post. The job sends each message through
   * `send`, which keeps the channel within its rate limit. A failed job does not block the next.
   */
  enqueue<T>(channelId: string, job: (send: PacedSend) => Promise<T>): Promise<T>;
  /** Resolves once every job queued so far has settled. */
  drain(): Promise<void>;
}

interface ChannelState {
  tail: Promise<void>;
  pending: number;
  /** When recent sends completed, oldest first (at most `count`). */
  sent: number[];
}

/**
 * Per-channel FIFO with a sliding-window pacer: the n-th message waits until the (n-count)-th
 * completed `windowMs` ago. Completion (not start) times are kept because Discord starts its
 * bucket when it receives a request, which is after we send it. Bursts wait; nothing is dropped.
 */
export function createOutboundQueue(limit: { count: number; windowMs: number } = DISCORD_MESSAGE_LIMIT, now: () => number = Date.now): OutboundQueue {
  const channels = new Map<string, ChannelState>();
  const all = new Set<Promise<unknown>>();

  /** Forgets idle channels whose window has passed, so memory stays flat across many channels. */
  const sweep = () => {
    for (const [id, state] of channels) {
      if (state.pending === 0 && now() - (state.sent.at(-1) ?? 0) >= limit.windowMs) channels.delete(id);
    }
  };

  const stateOf = (channelId: string): ChannelState => {
    let state = channels.get(channelId);
    if (!state) {
      if (channels.size >= 1024) sweep();
      state = { tail: Promise.resolve(), pending: 0, sent: [] };
      channels.set(channelId, state);
    }
    return state;
  };

  const pacedFor =
    (state: ChannelState): PacedSend =>
    async (call) => {
      if (limit.windowMs > 0 && state.sent.length >= limit.count) {
        const oldest = state.sent[state.sent.length - limit.count] ?? 0;
        const wait = oldest + limit.windowMs - now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      }
      try {
        return await call();
      } finally {
        state.sent.push(now());
        if (state.sent.length > limit.count) state.sent.splice(0, state.sent.length - limit.count);
      }
    };

  return {
    enqueue(channelId, job) {
      const state = stateOf(channelId);
      state.pending++;
      const result = state.tail.then(() => job(pacedFor(state)));
      const settled = result.then(
        () => undefined,
        () => undefined,
      );
      state.tail = settled;
      all.add(settled);
      void settled.then(() => {
        all.delete(settled);
        state.pending--;
        const last = state.sent.at(-1) ?? 0;
        if (state.pending === 0 && now() - last >= limit.windowMs) channels.delete(channelId);
      });
      return result;
    },
    async drain() {
      while (all.size > 0) await Promise.all([...all]);
    },
  };
}
