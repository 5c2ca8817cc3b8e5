/**
 * One background flush at a time: `kick()` starts `work` unless a run is already under way (that run
 * picks up whatever arrived meanwhile), and `settled()` waits for the run in flight. A stream's
 * appends use it so text arriving during a platform call is coalesced into the next call instead of
 * queueing one call per delta. Errors go to `onError`: a failed preview update never fails the run.
 */
export interface SingleFlight {
  kick(): void;
  settled(): Promise<void>;
}

export function singleFlight(work: () => Promise<void>, onError: (err: unknown) => void): SingleFlight {
  let running: Promise<void> | null = null;
  return {
    kick() {
      if (running) return;
      running = work()
        .catch(onError)
        .finally(() => {
          running = null;
        });
    },
    async settled() {
      await running;
    },
  };
}
