/** Time as a dependency: the runtime, heartbeat and scheduler take a Clock so tests can drive it. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Like setTimeout; returns a handle for clearTimer. */
  setTimer(fn: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
}

/** The real clock. Timers are unref'd so they never keep a stopping process alive. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref?.();
    return t;
  },
  clearTimer: (h) => clearTimeout(h as NodeJS.Timeout),
};
