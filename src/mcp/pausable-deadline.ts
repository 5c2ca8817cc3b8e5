import type { Clock } from '../clock.js';

/** A call's time limit that stops counting while it is held (a person answering a server's question). */
export interface PausableDeadline {
  /** Stops the count until the returned release is called (holds nest; the count resumes when the last ends). */
  hold(): () => void;
  /** Disarms it for good. */
  clear(): void;
}

/**
 * Fires `onExpired` once `ms` of unheld time have passed, on the injected clock. A server's `timeoutSeconds`
 * is for the server's own work: the minutes a person takes to fill in a form it asked for are not its time.
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
