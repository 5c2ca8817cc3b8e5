/**
 * The child side of a benchmarked bot process: the parent asks over IPC for the process's CPU
 * time and for "idle" (all work finished), so the CPU it reports is the bot's alone, never the
 * fakes' or the driver's, which live in the parent.
 */
export interface BotControl {
  /** Resolves when the bot has nothing left to do (Errand: no run in flight). */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

type Request = { id: number; type: 'cpu' | 'idle' | 'stop' };

/** Tells the parent the bot is up (with `info`, e.g. its HTTP port) and serves its requests. */
export function serveBotControl(control: BotControl, info: Record<string, unknown> = {}): void {
  const send = (m: unknown) => process.send?.(m);
  process.on('message', (raw) => {
    const req = raw as Request;
    void (async () => {
      if (req.type === 'cpu') {
        const cpu = process.cpuUsage();
        send({ id: req.id, user: cpu.user, system: cpu.system, rss: process.memoryUsage.rss() });
      } else if (req.type === 'idle') {
        await control.idle();
        send({ id: req.id });
      } else {
        await control.stop();
        process.send?.({ id: req.id }, () => process.exit(0));
      }
    })();
  });
  send({ id: 0, ready: true, ...info });
}
