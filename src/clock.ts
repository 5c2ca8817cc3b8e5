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

/** A time limit that stops counting while it is held (a person answering a question a tool asked). */
export interface PausableDeadline {
  /** Stops the count until the returned release is called (holds nest; the count resumes when the last ends). */
  hold(): () => void;
  /** Disarms it for good. */
  clear(): void;
}

/**
 * Fires `onExpired` once `ms` of unheld time have passed, on the injected clock. A run's time limit and an MCP
 * server's `timeoutSeconds` are for the work itself: the minutes a person takes to fill in a form a tool asked
 * for are not its time.
 */
export function pausableDeadline(clock: Clock, ms: number, onExpired: () => void): PausableDeadline {
  let remaining = ms;
  let startedAt = clock.now();
  let timer: unknown = clock.setTimer(onExpired, ms);
  let holds = 0;
  let cleared = false;
  return {
    hold() {
      if (!cleared && holds++ === 0 && timer !== null) {
        clock.clearTimer(timer);
        timer = null;
        remaining = Math.max(0, remaining - (clock.now() - startedAt));
      }
      let released = false;
      return () => {
        if (released) return;
        released = true;
        if (--holds === 0 && !cleared) {
          startedAt = clock.now();
          timer = clock.setTimer(onExpired, remaining);
        }
      };
    },
    clear() {
      cleared = true;
      if (timer !== null) clock.clearTimer(timer);
      timer = null;
    },
  };
}
