import type { Logger } from '../logger.js';

/**
 * One thing a platform shows while a run works (a reaction, "typing…", a notice with a Stop button):
 * shown after `afterMs` (so quick answers show nothing), optionally repeated, and taken down when the run ends.
 */
export interface WorkingSignal<T> {
  readonly name: string;
  readonly afterMs: number;
  /** Show it again this often while the run works (e.g. Discord's typing lasts 10 s). */
  readonly everyMs?: number;
  /** Shows the signal; resolves to what `hide` needs (e.g. the notice's message id), or null. */
  show(): Promise<T | null>;
  hide?(shown: T): Promise<void>;
}

export interface WorkingIndicator {
  /** Starts the signals for a run (replacing another run's) or, with null, takes them down. Returns at once. */
  set(key: string, runId: string | null, signals: () => readonly WorkingSignal<unknown>[]): void;
  /** Takes every signal down and waits for the platform calls in flight. */
  stopAll(): Promise<void>;
}

interface Running {
  runId: string;
  timers: NodeJS.Timeout[];
  shown: { signal: WorkingSignal<unknown>; value: Promise<unknown> }[];
}

/**
 * The working-status skeleton both adapters share: timers per conversation, calls never awaited by the
 * caller (so a status never delays a reply), every failure caught and logged (an un-awaited platform
 * rejection would crash the process), and everything shown taken down once.
 */
export function createWorkingIndicator(logger: Logger): WorkingIndicator {
  const running = new Map<string, Running>();
  const inFlight = new Set<Promise<unknown>>();
  const track = <T>(p: Promise<T>, what: string, fallback: T): Promise<T> => {
    const safe = p.catch((err: unknown) => {
      logger.warn({ err }, `${what} failed`);
      return fallback;
    });
    inFlight.add(safe);
    void safe.finally(() => inFlight.delete(safe));
    return safe;
  };
  const end = (key: string) => {
    const r = running.get(key);
    if (!r) return;
    running.delete(key);
    for (const t of r.timers) clearTimeout(t);
    for (const { signal, value } of r.shown) {
      const hide = signal.hide;
      if (hide)
        track(
          value.then((v) => (v === null ? undefined : hide(v))),
          `removing the ${signal.name}`,
          undefined,
        );
    }
  };
  return {
    set(key, runId, signals) {
      const current = running.get(key);
      if (current && runId !== null && current.runId === runId) return;
      end(key);
      if (runId === null) return;
      const r: Running = { runId, timers: [], shown: [] };
      running.set(key, r);
      for (const signal of signals()) {
        const fire = () => {
          if (running.get(key) !== r) return;
          const value = track(signal.show(), `showing the ${signal.name}`, null);
          if (signal.hide) r.shown.push({ signal, value });
          if (signal.everyMs) r.timers.push(setTimeout(fire, signal.everyMs).unref());
        };
        if (signal.afterMs <= 0) fire();
        else r.timers.push(setTimeout(fire, signal.afterMs).unref());
      }
    },
    async stopAll() {
      for (const key of [...running.keys()]) end(key);
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
  };
}
