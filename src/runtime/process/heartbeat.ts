import type { Clock } from '../../clock.js';
import type { Logger } from '../../logger.js';
import type { RunStore } from '../../run-records/run-store.js';
import type { EventDedupe } from '../../store/event-dedupe.js';
import type { RunCoordinator } from '../../runs/runtime/run-coordinator.js';

/** Why a tick started nothing (logged at debug; the heartbeat never posts when idle). */
export type HeartbeatSkipReason = 'no_ready_tasks' | 'no_free_slots' | 'stopping';

export interface HeartbeatReport {
  expiredQuestions: number;
  started: number;
  skipped: HeartbeatSkipReason | null;
}

export interface HeartbeatDeps {
  runs: RunStore;
  coordinator: RunCoordinator;
  dedupe: EventDedupe;
  clock: Clock;
  logger: Logger;
  maxConcurrentRuns: number;
  periodMs: number;
}

/** Redelivered events stop arriving after minutes; keys older than this are forgotten. */
export const DEDUPE_RETENTION_MS = 3 * 24 * 3600_000;

/**
 * The safety net: every period, expire unanswered questions (the model gets "no_answer") and
 * start the next ready task of idle conversations, up to the free concurrency. It never touches
 * a conversation whose run is active: readiness excludes them in the query itself.
 */
export class Heartbeat {
  private timer: unknown = null;
  private running = false;

  constructor(private readonly deps: HeartbeatDeps) {}

  async tick(): Promise<HeartbeatReport> {
    const { deps } = this;
    let expiredQuestions = 0;
    for (const run of await deps.runs.expiredQuestions(100)) {
      if (await deps.coordinator.answer(run, null, null)) expiredQuestions++;
    }
    const free = deps.maxConcurrentRuns - deps.coordinator.inFlight;
    const started = free > 0 ? await deps.coordinator.pump() : 0;
    await deps.dedupe.prune(deps.clock.now() - DEDUPE_RETENTION_MS);
    const skipped: HeartbeatSkipReason | null = started > 0 ? null : free <= 0 ? 'no_free_slots' : 'no_ready_tasks';
    deps.logger.debug({ expiredQuestions, started, skipped }, 'heartbeat');
    return { expiredQuestions, started, skipped };
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    const loop = async () => {
      if (!this.running) return;
      try {
        await this.tick();
      } catch (err) {
        this.deps.logger.error({ err }, 'heartbeat tick failed');
      }
      if (this.running) this.timer = this.deps.clock.setTimer(() => void loop(), this.deps.periodMs);
    };
    this.timer = this.deps.clock.setTimer(() => void loop(), this.deps.periodMs);
  }

  stop(): void {
    this.running = false;
    if (this.timer !== null) this.deps.clock.clearTimer(this.timer);
    this.timer = null;
  }
}
