import type { RunRow, TaskRow } from '../../db/schema.js';
import type { RunControl, StopResult } from '../../commands/command-deps.js';
import type { RunFence } from '../../run-records/run-fence.js';
import { ClaimsUnderWay } from './claims-under-way.js';
import { NextClaims, type NextTicket } from './next-claims.js';
import { claimNextTask, type ClaimedTask, type SlotHold } from './run-claim.js';
import type { CoordinatorDeps } from './run-deps.js';
import { RunLauncher, type RunResume } from './run-launch.js';
import { RunResumer, type AnswerSource } from './run-resume.js';
import { launchRun, type ActiveRun, type RunExecution } from './run-execution.js';
import { RunSettler } from './run-settler.js';
import { TaskStarts } from './task-starts.js';
import { stopConversationRun } from './run-stop.js';

export type { AgentSetup, CoordinatorDeps, RunData, RunLimits } from './run-deps.js';
export type { AnswerSource } from './run-resume.js';

export type StartResult =
  | { readonly kind: 'started'; readonly taskId: number }
  | { readonly kind: 'busy_conversation' | 'busy_global' | 'nothing_ready' | 'stopping' };

/**
 * Owns the runs in flight: at most one per conversation, at most `maxConcurrentRuns` overall; claims,
 * resumes, stops and shutdown. Runs are claimed from the database (task → in_progress and a run row in one
 * transaction), so nothing is held only in memory; when a run ends the next ready task starts at once.
 * What a run is given is the launcher's (run-launch.ts), how it executes run-execution.ts's, how it ended is recorded
 * by the settler (run-settler.ts).
 */
export class RunCoordinator implements RunControl {
  private readonly active = new Map<string, ActiveRun>();
  private readonly underWay = new ClaimsUnderWay();
  private readonly claiming = this.underWay.conversations;
  private readonly stoppedBeforeLaunch = this.underWay.stoppedBeforeLaunch;
  private stopping = false;
  /** Runs' ends that claim the next work in their settlement's call (PostgreSQL), and starts turned away meanwhile. */
  private readonly next = new NextClaims();
  /** Each task this process starts, as it starts (follow-up-teller.ts drops a waiting note with it). */
  readonly taskStarts = new TaskStarts();
  private readonly launcher: RunLauncher;
  private readonly resumer: RunResumer;
  private readonly settler: RunSettler;
  private readonly execution: RunExecution;

  constructor(private readonly deps: CoordinatorDeps) {
    const { data, clock, logger, limits } = deps;
    this.launcher = new RunLauncher({
      conversations: data.conversations,
      grants: data.grants,
      agent: deps.agent,
      platforms: deps.platforms,
      clock,
      logger,
      limits,
    });
    this.resumer = new RunResumer({ ...data, askTimeoutMs: limits.askTimeoutMs, now: () => clock.now() });
    const { metrics, scheduleRunEnded } = deps;
    const requeued = (conversationId: string, delayMs: number) =>
      void clock.setTimer(() => this.pumpLater(conversationId), delayMs);
    this.settler = new RunSettler({
      ...data,
      clock,
      limits,
      ...(metrics ? { metrics } : {}),
      ...(scheduleRunEnded ? { scheduleRunEnded } : {}),
      requeued,
    });
    const { launcher, settler, active, stoppedBeforeLaunch } = this;
    this.execution = {
      deps,
      launcher,
      settler,
      active,
      stoppedBeforeLaunch,
      stopping: () => this.stopping,
      askNext: (id) =>
        this.stopping ? undefined : this.next.ticket(id, active, this.claiming, deps.limits.maxConcurrentRuns),
      afterEnd: (id, ticket) => this.afterEnd(id, ticket),
    };
  }

  /** Conversations with a runner executing now (or about to). */
  get inFlight(): number {
    return this.active.size + this.claiming.size;
  }

  isExecuting(conversationId: string): boolean {
    return this.active.has(conversationId);
  }

  /** Starts the conversation's next ready task if it is idle and a slot is free. */
  async startNext(conversationId: string): Promise<StartResult> {
    if (this.stopping) return { kind: 'stopping' };
    if (this.active.has(conversationId) || this.claiming.has(conversationId)) {
      this.next.turnedAway();
      return { kind: 'busy_conversation' };
    }
    const hold = this.reserve(conversationId);
    if (!hold) {
      // No slot here: another process may have one.
      this.next.turnedAway();
      this.deps.cluster?.wake('task', conversationId);
      return { kind: 'busy_global' };
    }
    try {
      const claimed = await claimNextTask(this.deps.data.store, conversationId);
      // Another process (or flow) started a run there first: our claim of the task rolled back.
      if (claimed === 'busy') return { kind: 'busy_conversation' };
      if (!claimed)
        return { kind: (await this.deps.data.runs.active(conversationId)) ? 'busy_conversation' : 'nothing_ready' };
      return hold.launch(claimed);
    } finally {
      hold.release();
    }
  }

  /** Launches what a claim made in the message's own transaction took (`reserve`); when it took nothing, as startNext. */
  async startClaimed(conversationId: string, hold: SlotHold, claimed: ClaimedTask | null): Promise<StartResult> {
    if (claimed) return hold.launch(claimed);
    hold.release();
    return this.startNext(conversationId);
  }

  /**
   * Takes the conversation and a slot for a claim (null: shutting down, the conversation is busy here, or no slot
   * is free). Synchronous, so two callers in the same tick cannot both claim; the hold ends with `launch` or `release`.
   */
  reserve(conversationId: string): SlotHold | null {
    if (
      this.stopping ||
      this.active.has(conversationId) ||
      this.claiming.has(conversationId) ||
      this.inFlight >= this.deps.limits.maxConcurrentRuns
    )
      return null;
    return this.underWay.take(conversationId, (claimed) =>
      this.launch(conversationId, claimed.run, claimed.task, claimed.fence),
    );
  }

  /** Starts `prefer` first, then other ready conversations while slots are free (none: wakes the other processes for `prefer`). Returns how many started. */
  async pump(prefer?: string): Promise<number> {
    if (this.stopping) return 0;
    const { tasks } = this.deps.data;
    const busy = () => new Set([...this.active.keys(), ...this.claiming]);
    // Where the store answers it in one statement (PostgreSQL): what is due, asked once before anything starts.
    const opened = this.deps.limits.maxConcurrentRuns - this.inFlight;
    const due = opened > 0 ? await tasks.dueWork?.(opened, busy(), prefer) : undefined;
    // Runs with an answer (or an expired question) go first: someone is already waiting on them.
    let started = !due || due.questionsDue ? await this.resumeDue() : 0;
    const free = this.deps.limits.maxConcurrentRuns - this.inFlight;
    if (free <= 0) this.next.turnedAway();
    if (free <= 0 && prefer !== undefined) this.deps.cluster?.wake('task', prefer);
    if (free <= 0) return started;
    // One read of the ready conversations (most often none: a run just ended and nothing waits), `prefer`
    // first when it has something ready; a conversation with nothing ready gets no claim transaction.
    const ready = due ? due.ready.slice(0, free) : await tasks.findReadyConversations(free, busy(), prefer);
    for (const id of ready) {
      if ((await this.startNext(id)).kind === 'started') started++;
    }
    return started;
  }

  /** Starts the next work of a conversation from a callback nobody awaits; failures are logged. */
  private pumpLater(conversationId: string): void {
    this.pump(conversationId).catch((err: unknown) =>
      this.deps.logger.error({ err, conversationId }, 'starting the next task failed'),
    );
  }

  /** Resumes waiting runs whose answer is recorded or whose question expired, while slots are free. */
  private async resumeDue(): Promise<number> {
    const free = this.deps.limits.maxConcurrentRuns - this.inFlight;
    if (free <= 0) return 0;
    let resumed = 0;
    for (const run of await this.deps.data.runs.expiredQuestions(free)) {
      if (
        !this.active.has(run.conversationId) &&
        !this.claiming.has(run.conversationId) &&
        (await this.answer(run, null, null))
      )
        resumed++;
    }
    return resumed;
  }

  /**
   * Delivers an answer (or `null`: nobody answered in time) to a waiting run and resumes it.
   * When the run's loop is still unwinding after parking, the answer is applied once it has.
   */
  async answer(
    run: RunRow,
    answer: string | null,
    userId: string | null,
    source: AnswerSource = answer === null ? 'timeout' : 'typed',
  ): Promise<boolean> {
    const recorded = run.question?.answer;
    if (recorded && answer === null)
      return this.answer(
        { ...run, question: { ...run.question!, answer: undefined } },
        recorded.text,
        recorded.userId,
        recorded.source,
      );
    const { conversationId } = run;
    const entry = this.active.get(conversationId);
    if (entry) {
      if (entry.runId !== run.id) return false;
      // Kept with the run first: a crash before the loop has unwound must not lose it (start-up resumes it).
      if (!(await this.deps.data.runs.recordAnswer(run.id, { text: answer, userId, source }))) return false;
      void entry.done
        .then(async () => {
          const fresh = await this.deps.data.runs.get(run.id);
          if (fresh?.status === 'waiting_user' && !(await this.answer(fresh, null, null))) {
            this.deps.logger.warn({ runId: run.id }, 'a deferred answer could not be delivered');
          }
        })
        .catch((err: unknown) => this.deps.logger.error({ err, runId: run.id }, 'delivering a deferred answer failed'));
      return true;
    }
    if (this.stopping || this.inFlight >= this.deps.limits.maxConcurrentRuns) {
      // No slot (or shutting down): keep the answer with the run; the next free slot (here or in another process) or start-up resumes it.
      const recorded = await this.deps.data.runs.recordAnswer(run.id, { text: answer, userId, source });
      this.next.turnedAway();
      if (recorded) this.deps.cluster?.wake('answer', conversationId);
      return recorded;
    }
    // Before the first await, as in startNext: the slot and the conversation are taken until the launch.
    // (A claim already under way there finds this run active and claims nothing; the unpark decides.)
    const mine = !this.claiming.has(conversationId);
    if (mine) this.claiming.add(conversationId);
    try {
      const resumed = await this.resumer.resume(run, answer, userId, source);
      if (!resumed) return false;
      this.launch(conversationId, { ...run, status: 'running' }, resumed.task, resumed.fence, resumed.resume);
      return true;
    } finally {
      if (mine) {
        this.claiming.delete(conversationId);
        this.stoppedBeforeLaunch.delete(conversationId);
      }
    }
  }

  /** Stops the conversation's active run (and with `all` its pending tasks). Takes effect at once. */
  stopConversation(conversationId: string, all: boolean): Promise<StopResult> {
    const { execution, claiming, stoppedBeforeLaunch, next } = this;
    const pump = (id: string) => this.pump(id);
    return stopConversationRun({ execution, claiming, stoppedBeforeLaunch, next, pump }, conversationId, all);
  }

  /** Aborts every run for shutdown; their rows stay `running` and are recovered as interrupted on the next start. */
  async shutdown(): Promise<void> {
    this.stopping = true;
    for (const entry of this.active.values()) {
      entry.reason = 'shutdown';
      entry.controller.abort();
    }
    await Promise.allSettled([...this.active.values()].map((e) => e.done));
  }

  /** Resolves when no run is executing (tests and benchmarks). */
  async idle(): Promise<void> {
    // A claim under way (its transaction may still wait on the database) ends as an active run or as nothing.
    while (this.active.size > 0 || this.underWay.count > 0)
      await Promise.allSettled([...this.active.values()].map((e) => e.done).concat(this.underWay.promises));
  }

  /**
   * A run has left `active`: the run its settlement claimed (next-claims.ts) is launched now, in the same tick, under
   * the slot it left, and the pump follows when more may be due. Nothing follows while shutting down.
   */
  private afterEnd(conversationId: string, ticket: NextTicket | undefined): void {
    const { launch, pump } = this.next.afterEnd(ticket, this.stopping);
    let again = pump;
    if (launch && this.active.has(launch.run.conversationId)) {
      // Cannot happen while the database keeps one active run per conversation; left to its lease, never doubled.
      this.deps.logger.error(
        { runId: launch.run.id },
        "a run claimed at a run's end found its conversation executing here",
      );
      again = true;
    } else if (launch) this.launch(launch.run.conversationId, launch.run, launch.task, launch.fence);
    if (this.stopping && ticket?.answer?.claimed)
      this.deps.logger.info(
        { runId: ticket.answer.claimed.run.id },
        'a run claimed as the shutdown began was not started; its lease is released for another process to take over',
      );
    if (again) this.pumpLater(conversationId);
  }

  /** Starts executing a claimed run (run-execution.ts). */
  private launch(conversationId: string, run: RunRow, task: TaskRow | null, fence: RunFence, resume?: RunResume): void {
    launchRun(this.execution, conversationId, run, task, fence, resume);
    if (task) this.taskStarts.started(task.id);
  }
}
