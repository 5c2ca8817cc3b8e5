import type { Clock } from '../../src/clock.js';
import { renderRunEnd, renderWorking, type ConsoleLook } from './render.js';

/** Shows that runs are working and how long they have taken, and marks where each one ended. */
export interface WorkingIndicator {
  /** A run started (or resumed) in this conversation. */
  begin(key: string): void;
  /** The run in this conversation asked the user something: its end waits for an answer rather than being done. */
  asked(key: string): void;
  /** The run in this conversation ended: prints its end marker. */
  end(key: string): void;
  /** Stops the timer (the console is closing). */
  dispose(): void;
}

export interface WorkingIndicatorOptions {
  readonly clock: Clock;
  readonly look: ConsoleLook;
  /**
   * A terminal: the status line is redrawn in place every second through `show`. Otherwise a plain
   * line is printed when work starts and every `plainEveryMs`, so piped output stays a readable log.
   */
  readonly live: boolean;
  /** Sets the live status line (null: removes it). */
  show(status: string | null): void;
  /** Prints a finished line. */
  print(line: string): void;
  /** How often a pipe gets a "still working" line (default 10 s). */
  readonly plainEveryMs?: number;
}

/**
 * The console's "… working (12 s) — type stop to stop" line and its "── done in 14 s ──" marker. Time
 * comes from the injected clock, so tests move it by hand. The console usually has one run at a time;
 * when several overlap (a scheduled prompt beside the session), the line counts from the oldest.
 */
export function createWorkingIndicator(options: WorkingIndicatorOptions): WorkingIndicator {
  const { clock, look, live } = options;
  const every = live ? 1000 : (options.plainEveryMs ?? 10_000);
  const runs = new Map<string, { startedAt: number; asked: boolean }>();
  let timer: unknown = null;

  const oldest = () => Math.min(...[...runs.values()].map((r) => r.startedAt));
  const arm = () => {
    if (timer !== null) clock.clearTimer(timer);
    const elapsed = clock.now() - oldest();
    timer = clock.setTimer(tick, every - (elapsed % every));
  };
  const tick = () => {
    timer = null;
    if (runs.size === 0) return;
    const status = renderWorking(clock.now() - oldest(), look);
    if (live) options.show(status);
    else options.print(status);
    arm();
  };

  return {
    begin(key) {
      const first = runs.size === 0;
      runs.set(key, { startedAt: clock.now(), asked: false });
      if (!first) return;
      if (live) options.show(renderWorking(0, look));
      else options.print(renderWorking(null, look));
      arm();
    },
    asked(key) {
      const run = runs.get(key);
      if (run) run.asked = true;
    },
    end(key) {
      const run = runs.get(key);
      if (!run) return;
      runs.delete(key);
      if (runs.size === 0) {
        if (timer !== null) clock.clearTimer(timer);
        timer = null;
        if (live) options.show(null);
      }
      options.print(renderRunEnd(run.asked ? 'waiting' : 'done', clock.now() - run.startedAt, look));
    },
    dispose() {
      if (timer !== null) clock.clearTimer(timer);
      timer = null;
      runs.clear();
    },
  };
}
