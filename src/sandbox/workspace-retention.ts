import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { WorkspaceStore } from './workspace-store.js';

/** How often idle workspaces are looked for; retention is counted in days, so an hour late is nothing. */
export const RETENTION_SWEEP_MS = 60 * 60_000;
/** Workspaces deleted per batch of a sweep (each batch one transaction). */
const BATCH = 100;
const DAY_MS = 24 * 60 * 60_000;

/** Deletes workspaces `sandbox.retentionDays` after their last use, on a timer of the injected clock. */
export interface WorkspaceRetention {
  start(): void;
  stop(): void;
  /** One sweep now; resolves with how many workspaces it deleted. */
  sweep(): Promise<number>;
}

/** Retention over the workspace store, armed by `start()` (the app's start) and disarmed by `stop()`. */
export function createWorkspaceRetention(deps: {
  store: Pick<WorkspaceStore, 'deleteIdleBefore'>;
  clock: Clock;
  logger: Logger;
  retentionDays: number;
  everyMs?: number;
}): WorkspaceRetention {
  const { store, clock, logger } = deps;
  const every = deps.everyMs ?? RETENTION_SWEEP_MS;
  let timer: unknown = null;
  let running = false;
  const sweep = async () => {
    const before = clock.now() - deps.retentionDays * DAY_MS;
    let deleted = 0;
    for (;;) {
      const ids = await store.deleteIdleBefore(before, BATCH);
      deleted += ids.length;
      if (ids.length < BATCH) break;
    }
    if (deleted > 0) logger.info({ deleted, retentionDays: deps.retentionDays }, 'deleted idle sandbox workspaces');
    return deleted;
  };
  const arm = () => {
    timer = clock.setTimer(() => {
      void sweep()
        .catch((err: unknown) => logger.warn({ err }, 'deleting idle sandbox workspaces failed'))
        .finally(() => {
          if (running) arm();
        });
    }, every);
  };
  return {
    start() {
      if (running) return;
      running = true;
      arm();
    },
    stop() {
      running = false;
      if (timer !== null) clock.clearTimer(timer);
      timer = null;
    },
    sweep,
  };
}
