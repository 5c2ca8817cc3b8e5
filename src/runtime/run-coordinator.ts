import { parseApprovalDecision, type ApprovalDecision } from '../agent/approval-decision.js';
import { executeRun, type RunInput } from '../agent/runner.js';
import { onlyChanges } from '../agent/run-activity.js';
import { buildSystemPrompt } from '../agent/system-prompt.js';
import type { RunPosts } from '../agent/agent-types.js';
import type { LlmClient } from '../agent/llm-client.js';
import type { ToolRegistry } from '../agent/tools/tool-registry.js';
import type { ToolContext } from '../agent/tools/tool.js';
import type { Budget, Payer } from '../budget/budget.js';
import { stopActionId } from '../chat/action-id.js';
import type { ChatAdapter, WorkingStatus } from '../chat/chat-adapter.js';
import type { ConversationRef } from '../chat/conversation-ref.js';
import type { Clock } from '../clock.js';
import type { RunControl, StopResult } from '../commands/command-deps.js';
import type { ConversationStore } from '../conversations/conversation-store.js';
import type { TranscriptStore } from '../conversations/transcript-store.js';
import type { PendingQuestion, RunRow, TaskRow } from '../db/schema.js';
import type { ToolGrantStore } from '../conversations/tool-grant-store.js';
import { principalOf } from './principal.js';
import type { Logger } from '../logger.js';
import { toPieces } from '../outbox/post-pieces.js';
import { noopMetrics, type Metrics, type RunOutcomeLabel } from '../metrics/metrics.js';
import { ConversationBusyError } from '../runs/conversation-busy-error.js';
import { RunFencedError, type RunFence } from '../runs/run-fence.js';
import type { RunStore } from '../runs/run-store.js';
import type { ScheduleRunResult } from '../schedules/schedule-failures.js';
import type { Store } from '../store/store.js';
import { channelOverridesFor } from '../settings/channel-overrides.js';
import type { ChannelSettings } from '../settings/team-settings.js';
import type { TaskService } from '../tasks/task-service.js';
import type { ClusterMembership, RunLoss } from './cluster.js';
import { fenceRunWrites, type RunWrites } from './fenced-run-writes.js';
import { goalMessage } from './goal-message.js';
import { settleRun, type AbortReason, type RunEnding } from './run-settlement.js';

export interface RunLimits {
  maxConcurrentRuns: number;
  maxSteps: number;
  maxRunMs: number;
  contextBudget: number;
  askTimeoutMs: number;
  defaultTimezone: string;
  /** Attempts a task gets when failures are transient. */
  maxAttempts: number;
  /** Delay before retry after `attempts` transient failures. */
  retryDelayMs(attempts: number): number;
}

export interface CoordinatorDeps {
  /** Claims and settlements are transactions of this store. */
  store: Pick<Store, 'atomically'>;
  conversations: ConversationStore;
  transcript: TranscriptStore;
  tasks: TaskService;
  runs: RunStore;
  adapters: ReadonlyMap<string, ChatAdapter>;
  llm: LlmClient;
  tools: ToolRegistry;
  clock: Clock;
  logger: Logger;
  limits: RunLimits;
  /** Paragraphs added to every system prompt (e.g. scheduling help). */
  promptExtras?: readonly string[];
  grants: ToolGrantStore;
  /** Where runs post: recorded with the step that produced the post, delivered by the outbox. */
  posts: RunPosts;
  /** A scheduled run ended in a way its schedule records (a success, or a target that is gone). */
  scheduleRunEnded?(scheduleId: number, result: ScheduleRunResult): Promise<void>;
  /** Where run outcomes are counted (default: nowhere). */
  metrics?: Metrics;
  /** Token budgets: every run records its usage here and stops when one runs out. Absent: nothing is counted. */
  budget?: Budget;
  /** Per-channel prompt and model (the `channels` key of the configuration file). */
  channels?: ChannelSettings;
  /** The other processes on the same database (leases, wake-ups, stops); absent: this process is alone. */
  cluster?: ClusterMembership;
}

/** How a waiting run got its answer: a click is shown by the adapter, anything else by editing the post here. */
export type AnswerSource = 'click' | 'typed' | 'timeout';


type RunResume = NonNullable<RunInput['resume']>;

interface ActiveRun {
  runId: string;
  taskId: number | null;
  controller: AbortController;
  reason: AbortReason | null;
  done: Promise<void>;
}

export type StartResult =
  | { readonly kind: 'started'; readonly taskId: number }
  | { readonly kind: 'busy_conversation' | 'busy_global' | 'nothing_ready' | 'stopping' };


/**
 * Owns the runs in flight: at most one per conversation, at most `maxConcurrentRuns` overall.
 * Runs are claimed from the database (task → in_progress and a run row in one transaction), so
 * nothing is held only in memory; when a run ends the next ready task starts at once.
 */
export class RunCoordinator implements RunControl {
  private readonly active = new Map<string, ActiveRun>();
  /**
   * Conversations between the first await of a claim or resume and the launch: taken before that
   * await, so two callers in the same tick cannot both claim, and counted against the slots.
   */
  private readonly claiming = new Set<string>();
  /** Claims under way (startNext between its first line and the launch), so idle() can wait for them too. */
  private readonly claims = new Set<Promise<void>>();
  /** A run stopped while its launch was on its way (claimed, not yet executing): the launch is dropped. */
  private readonly stoppedBeforeLaunch = new Map<string, string>();
  private stopping = false;

  constructor(private readonly deps: CoordinatorDeps) {}

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
    if (this.active.has(conversationId) || this.claiming.has(conversationId)) return { kind: 'busy_conversation' };
    if (this.inFlight >= this.deps.limits.maxConcurrentRuns) {
      // No slot here: another process may have one.
      this.deps.cluster?.wake('task', conversationId);
      return { kind: 'busy_global' };
    }
    const { runs } = this.deps;
    // Before the first await: a second caller in the same tick sees the conversation busy.
    this.claiming.add(conversationId);
    let settle!: () => void;
    const claim = new Promise<void>((resolve) => (settle = resolve));
    this.claims.add(claim);
    try {
      let claimed: { task: TaskRow; run: RunRow; fence: RunFence } | null;
      try {
        claimed = await this.deps.store.atomically(async (tx) => {
          if (await tx.runs.active(conversationId)) return null;
          const task = await tx.tasks.claimNext(conversationId);
          if (!task) return null;
          // The run acts for its task's principal, stored with it so a resume or a takeover reads the same person.
          const run = await tx.runs.create(conversationId, task.id, task.requestedBy !== null ? { userId: task.requestedBy, roles: task.requesterRoles } : null);
          if (task.attempts === 1) {
            await tx.transcript.append({ conversationId, runId: run.id, role: 'user', content: goalMessage(task), authorId: task.requestedBy, platformMessageId: task.sourceMessageId, images: task.images });
          }
          // Read in the claiming transaction: the owner and generation every write of this execution is conditional on.
          return { task, run, fence: await tx.runs.fence(run.id) };
        });
      } catch (err) {
        // Another process (or flow) started a run there first: our claim of the task rolled back.
        if (err instanceof ConversationBusyError) return { kind: 'busy_conversation' };
        throw err;
      }
      if (!claimed) return { kind: (await runs.active(conversationId)) ? 'busy_conversation' : 'nothing_ready' };
      this.launch(conversationId, claimed.run, claimed.task, claimed.fence);
      return { kind: 'started', taskId: claimed.task.id };
    } finally {
      this.claiming.delete(conversationId);
      this.stoppedBeforeLaunch.delete(conversationId);
      this.claims.delete(claim);
      settle();
    }
  }

  /** Starts `prefer` first, then other ready conversations while slots are free. Returns how many started. */
  async pump(prefer?: string): Promise<number> {
    if (this.stopping) return 0;
    // Runs with an answer (or an expired question) go first: someone is already waiting on them.
    let started = await this.resumeDue();
    const free = this.deps.limits.maxConcurrentRuns - this.inFlight;
    if (free <= 0) return started;
    // One read of the ready conversations (most often none: a run just ended and nothing waits). `prefer`
    // goes first when it is among them, or when the list was cut at `free` and might have left it out;
    // otherwise it has nothing ready and no claim transaction is opened for it.
    const ready = await this.deps.tasks.findReadyConversations(free, new Set([...this.active.keys(), ...this.claiming]));
    const first = prefer !== undefined && (ready.includes(prefer) || ready.length >= free) ? [prefer] : [];
    for (const id of [...first, ...ready.filter((r) => r !== prefer)]) {
      if ((await this.startNext(id)).kind === 'started') started++;
    }
    return started;
  }

  /** Starts the next work of a conversation from a callback nobody awaits; failures are logged. */
  private pumpLater(conversationId: string): void {
    this.pump(conversationId).catch((err: unknown) => this.deps.logger.error({ err, conversationId }, 'starting the next task failed'));
  }

  /** Resumes waiting runs whose answer is recorded or whose question expired, while slots are free. */
  private async resumeDue(): Promise<number> {
    const free = this.deps.limits.maxConcurrentRuns - this.inFlight;
    if (free <= 0) return 0;
    let resumed = 0;
    for (const run of await this.deps.runs.expiredQuestions(free)) {
      if (!this.active.has(run.conversationId) && !this.claiming.has(run.conversationId) && (await this.answer(run, null, null))) resumed++;
    }
    return resumed;
  }

  /**
   * Delivers an answer (or `null`: nobody answered in time) to a waiting run and resumes it.
   * When the run's loop is still unwinding after parking, the answer is applied once it has.
   */
  async answer(run: RunRow, answer: string | null, userId: string | null, source: AnswerSource = answer === null ? 'timeout' : 'typed'): Promise<boolean> {
    const recorded = run.question?.answer;
    if (recorded && answer === null) return this.answer({ ...run, question: { ...run.question!, answer: undefined } }, recorded.text, recorded.userId, recorded.source);
    const { conversationId } = run;
    const entry = this.active.get(conversationId);
    if (entry) {
      if (entry.runId !== run.id) return false;
      // Kept with the run first: a crash before the loop has unwound must not lose it (start-up resumes it).
      if (!(await this.deps.runs.recordAnswer(run.id, { text: answer, userId, source }))) return false;
      void entry.done
        .then(async () => {
          const fresh = await this.deps.runs.get(run.id);
          if (fresh?.status === 'waiting_user' && !(await this.answer(fresh, null, null))) {
            this.deps.logger.warn({ runId: run.id }, 'a deferred answer could not be delivered');
          }
        })
        .catch((err: unknown) => this.deps.logger.error({ err, runId: run.id }, 'delivering a deferred answer failed'));
      return true;
    }
    if (this.stopping || this.inFlight >= this.deps.limits.maxConcurrentRuns) {
      // No slot (or shutting down): keep the answer with the run; the next free slot (here or in another process) or start-up resumes it.
      const recorded = await this.deps.runs.recordAnswer(run.id, { text: answer, userId, source });
      if (recorded) this.deps.cluster?.wake('answer', conversationId);
      return recorded;
    }
    // Before the first await, as in startNext: the slot and the conversation are taken until the launch.
    // (A claim already under way there finds this run active and claims nothing; the unpark decides.)
    const mine = !this.claiming.has(conversationId);
    if (mine) this.claiming.add(conversationId);
    try {
      const task = run.taskId !== null ? await this.deps.tasks.get(run.taskId) : null;
      const minutes = Math.round(this.deps.limits.askTimeoutMs / 60_000);
      // The resume is a claim: the run back to running, its fence, and a question's answer for the model, in one write.
      const resumed = await this.deps.store.atomically(async (tx) => {
        const question = await tx.runs.unpark(run.id);
        if (!question) return null;
        if (!question.approval) {
          const result =
            answer === null
              ? { ok: true, answer: 'no_answer', note: `Nobody answered within ${minutes} minutes. Decide how to go on without the answer.` }
              : { ok: true, answer, ...(userId ? { answered_by: userId } : {}) };
          await tx.transcript.append({ conversationId, runId: run.id, role: 'tool', content: JSON.stringify(result), toolCallId: question.toolCallId });
        }
        return { question, fence: await tx.runs.fence(run.id) };
      });
      if (!resumed) return false;
      const { question, fence } = resumed;
      if (question.approval) {
        const decision = answer === null ? 'timeout' : (parseApprovalDecision(answer) ?? 'deny');
        if (decision === 'always') await this.deps.grants.grant(conversationId, question.approval.tool, userId);
        if (source !== 'click') this.showDecision(conversationId, question, decision, userId);
        this.launch(conversationId, { ...run, status: 'running' }, task, fence, { approval: question.approval, decision });
        return true;
      }
      this.launch(conversationId, { ...run, status: 'running' }, task, fence);
      return true;
    } finally {
      if (mine) {
        this.claiming.delete(conversationId);
        this.stoppedBeforeLaunch.delete(conversationId);
      }
    }
  }

  /** Stops the conversation's active run (and with `all` its pending tasks). Takes effect at once. */
  async stopConversation(conversationId: string, all: boolean): Promise<StopResult> {
    const { runs, tasks } = this.deps;
    const run = await runs.active(conversationId);
    let stoppedTaskId: number | null = null;
    if (run && (await runs.transition(run.id, ['running', 'waiting_user'], 'cancelled', { error: 'stopped by a user' }))) {
      this.countEnd('cancelled', run);
      const entry = this.active.get(conversationId);
      if (entry && entry.runId === run.id) {
        entry.reason = 'stop';
        entry.controller.abort();
      } else if (this.claiming.has(conversationId)) {
        this.stoppedBeforeLaunch.set(conversationId, run.id);
      } else {
        // Executing in another process (or nowhere): the cancelled row is the record; its owner aborts it when woken.
        this.deps.cluster?.wake('stop', conversationId);
      }
      // Stop means stop: the rest of a long answer the platform has not taken yet is not posted.
      const dropped = await this.deps.posts.dropUnsent(run.id);
      if (dropped > 0) this.deps.logger.debug({ runId: run.id, dropped }, 'unsent pieces of a stopped run dropped');
      stoppedTaskId = run.taskId;
      if (run.taskId !== null) await tasks.cancel(conversationId, run.taskId);
    }
    const cancelledPending = all ? await tasks.cancelPending(conversationId) : 0;
    if (!this.active.has(conversationId)) await this.pump(conversationId);
    return { stoppedTaskId, stoppedRun: run !== null, cancelledPending };
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
    while (this.active.size > 0 || this.claims.size > 0) await Promise.allSettled([...this.active.values()].map((e) => e.done).concat([...this.claims]));
  }

  /** Counts a run that reached a final status, with its time since it started. */
  private countEnd(outcome: RunOutcomeLabel, run: RunRow): void {
    (this.deps.metrics ?? noopMetrics).runFinished(outcome, (this.deps.clock.now() - run.startedAt) / 1000);
  }

  /**
   * Edits an approval post to say what was decided, removing its buttons. Arguments too long for one
   * message were posted over several, and `messageId` is the last of them: it keeps its own part of
   * the text (cut exactly as the outbox cut it), so the arguments still read whole.
   */
  private showDecision(conversationId: string, question: PendingQuestion, decision: ApprovalDecision | 'timeout', userId: string | null): void {
    const ref = this.deps.conversations.refOf(conversationId);
    const adapter = ref ? this.deps.adapters.get(ref.platform) : undefined;
    if (!ref || !adapter || !question.messageId) return;
    const by = userId ? ` by <@${userId}>` : '';
    const outcome = { once: `✅ Allowed once${by}.`, always: `✅ Always allowed here${by}.`, deny: `🚫 Denied${by}.`, timeout: '⌛ Nobody decided in time: not run.' }[decision];
    const pieces = toPieces({ purpose: 'approval', text: question.question, ...(question.userId ? { mentionUserId: question.userId } : {}) }, adapter.capabilities.maxMessageLength);
    const shown = pieces.at(-1)?.text ?? question.question;
    adapter
      .editMessage(ref, question.messageId, { text: `${shown}\n\n${outcome}` })
      .catch((err: unknown) => this.deps.logger.warn({ err, conversationId }, 'showing the approval decision failed'));
  }

  /**
   * Starts executing a claimed run. Synchronous up to registering it as active, so the claim hands over without a gap.
   * `fence` is what the claim wrote: every write of this execution is conditional on it (fenced-run-writes.ts).
   */
  private launch(conversationId: string, run: RunRow, task: TaskRow | null, fence: RunFence, resume?: RunResume): void {
    if (this.stoppedBeforeLaunch.get(conversationId) === run.id) return;
    const ref = this.deps.conversations.refOf(conversationId);
    const adapter = ref ? this.deps.adapters.get(ref.platform) : undefined;
    if (!ref || !adapter) {
      this.deps.logger.error({ conversationId }, 'no adapter for this conversation; failing the run');
      void this.failUnlaunchable(conversationId, run, task).catch((err: unknown) => this.deps.logger.error({ err, runId: run.id }, 'failing a run without an adapter failed'));
      return;
    }
    const controller = new AbortController();
    const entry: ActiveRun = { runId: run.id, taskId: task?.id ?? null, controller, reason: null, done: Promise.resolve() };
    this.active.set(conversationId, entry);
    const writes = fenceRunWrites(fence, { posts: this.deps.posts, transcript: this.deps.transcript, runs: this.deps.runs }, (err) => this.refused(conversationId, entry, err));
    this.deps.cluster?.runStarted(run.id, conversationId, (why) => this.lose(conversationId, entry, why));
    const timer = this.deps.clock.setTimer(() => {
      entry.reason ??= 'timeout';
      controller.abort();
    }, this.deps.limits.maxRunMs);
    entry.done = this.execute(conversationId, ref, adapter, run, task, entry, writes, resume)
      .catch(async (err: unknown) => {
        // Refused because another process owns the run now (logged by `refused`): it is not ours to settle.
        if (err instanceof RunFencedError) return;
        // An exception nobody expected (a failed write, a bug): end the run so the conversation is free again.
        this.deps.logger.error({ err, runId: run.id, conversationId }, 'run crashed');
        await this.settle(conversationId, run, task, { kind: 'crashed', error: err }, entry.reason, writes).catch((again: unknown) => {
          if (!(again instanceof RunFencedError)) this.deps.logger.error({ err: again, runId: run.id }, 'recording the crashed run failed');
        });
      })
      .finally(() => {
        if (entry.reason === 'taken_over') this.deps.logger.info({ runId: run.id, conversationId }, 'stopped working on a run owned elsewhere now');
        this.deps.clock.clearTimer(timer);
        this.active.delete(conversationId);
        this.deps.cluster?.runEnded(run.id);
        if (!this.stopping) this.deps.cluster?.wake('task', conversationId);
        adapter.setWorking(ref, null).catch((err: unknown) => this.deps.logger.warn({ err }, 'clearing the working status failed'));
        if (!this.stopping) this.pumpLater(conversationId);
      });
  }

  /** Gives up a run this process no longer owns: stopped from another process, or taken over. Not settled here. */
  private lose(conversationId: string, entry: ActiveRun, why: RunLoss): void {
    if (this.active.get(conversationId) !== entry) return;
    entry.reason ??= why === 'stopped' ? 'stop' : 'taken_over';
    entry.controller.abort();
    this.deps.logger.info({ runId: entry.runId, conversationId, why }, 'gave up a run owned elsewhere now');
    if (why === 'stopped') {
      void this.deps.posts.dropUnsent(entry.runId).catch((err: unknown) => this.deps.logger.warn({ err, runId: entry.runId }, 'dropping unsent pieces of a stopped run failed'));
    }
  }

  /**
   * A write of the run was refused by its fence: this process stalled past its lease and another took the
   * run over (and runs it again). Stops it here at once — no settlement, no post, no further tool or model call.
   */
  private refused(conversationId: string, entry: ActiveRun, err: RunFencedError): void {
    this.deps.logger.warn(
      { runId: entry.runId, conversationId, owner: err.fence.owner, generation: err.fence.generation },
      'a write of this run was refused: another process took it over while this one stalled past its lease; stopping it here',
    );
    if (this.active.get(conversationId) !== entry) return;
    entry.reason = 'taken_over';
    entry.controller.abort();
  }

  private async failUnlaunchable(conversationId: string, run: RunRow, task: TaskRow | null): Promise<void> {
    if (await this.deps.runs.transition(run.id, ['running'], 'failed', { error: 'no adapter for this platform' })) this.countEnd('failed', run);
    if (task) await this.deps.tasks.fail(conversationId, task.id, 'No chat adapter is connected for this platform.');
  }

  private async execute(conversationId: string, ref: ConversationRef, adapter: ChatAdapter, run: RunRow, task: TaskRow | null, entry: ActiveRun, writes: RunWrites, resume: RunResume | undefined): Promise<void> {
    const { deps } = this;
    const working: WorkingStatus = { runId: run.id, stopActionId: stopActionId(run.id), ...(task?.sourceMessageId ? { sourceMessageId: task.sourceMessageId } : {}) };
    const showWorking = (status: WorkingStatus) => adapter.setWorking(ref, status).catch((err: unknown) => deps.logger.warn({ err }, 'showing the working status failed'));
    void showWorking(working);
    // Each step's activity goes to the adapter (Slack's assistant status line); only changes, so it stays cheap.
    const activity = onlyChanges((a) => void showWorking({ ...working, ...a }));
    const timezone = await this.timezoneFor(conversationId, adapter, task);
    const principal = principalOf(ref.platform, run, task);
    const toolContext: ToolContext = {
      conversationId,
      conversation: ref,
      runId: run.id,
      taskId: task?.id ?? null,
      userId: principal?.userId ?? null,
      principal,
      timezone,
      scheduled: task?.fromSchedule === true || task?.createdBy === 'schedule',
      signal: entry.controller.signal,
      now: () => deps.clock.now(),
    };
    const toolNames = deps.tools.specsFor(toolContext).map((t) => t.name);
    const channel = channelOverridesFor(deps.channels ?? {}, ref);
    // The principal decides approvals and pays (a scheduled run: the schedule's creator).
    const approverId = principal?.userId ?? null;
    const payer: Payer | null = principal ? { platform: principal.platform, userId: principal.userId } : null;
    const outcome = await executeRun(
      {
        runId: run.id,
        conversation: ref,
        signal: entry.controller.signal,
        systemPrompt: buildSystemPrompt({
          platform: ref.platform,
          now: deps.clock.now(),
          timezone,
          task,
          maxSteps: deps.limits.maxSteps,
          extra: deps.promptExtras ?? [],
          toolNames,
          ...(channel.prompt ? { channelPrompt: channel.prompt } : {}),
        }),
        goal: task ? goalMessage(task) : null,
        ...(task?.images && task.images.length > 0 ? { goalImages: task.images } : {}),
        toolContext,
        approverId,
        ...(deps.budget ? { budget: deps.budget.forRun(run.id, payer, run.tokens) } : {}),
        ...(channel.model ? { model: channel.model } : {}),
        ...(resume ? { resume } : {}),
        stepsTaken: run.steps,
      },
      {
        llm: deps.llm,
        grants: deps.grants,
        tools: deps.tools,
        transcript: writes.transcript,
        runs: writes.runs,
        logger: deps.logger,
        maxSteps: deps.limits.maxSteps,
        contextBudget: deps.limits.contextBudget,
        askTimeoutMs: deps.limits.askTimeoutMs,
        posts: writes.posts,
        now: () => deps.clock.now(),
        activity,
        ...(adapter.openStream
          ? {
              openStream: () => adapter.openStream!(ref, toolContext.userId, { beforeMessage: () => writes.posts.recordPreview(conversationId, run.id) }),
              // A run taken over is answered again by its new owner: its unfinished preview goes, as at a shutdown.
              shuttingDown: () => this.stopping || entry.reason === 'taken_over',
            }
          : {}),
      },
    );
    await this.settle(conversationId, run, task, outcome, entry.reason, writes);
  }

  private async timezoneFor(conversationId: string, adapter: ChatAdapter, task: TaskRow | null): Promise<string> {
    const stored = (await this.deps.conversations.get(conversationId))?.timezone;
    if (stored) return stored;
    if (task?.requestedBy) {
      const tz = (await adapter.fetchUserTimezone?.(task.requestedBy).catch(() => null)) ?? null;
      if (tz) return tz;
    }
    return this.deps.limits.defaultTimezone;
  }

  /**
   * Records how a run ended: run status, task change and the note for the thread in one transaction, a
   * write of the run like its steps (`writes`: refused when another process owns the run now).
   */
  private async settle(conversationId: string, run: RunRow, task: TaskRow | null, ending: RunEnding, reason: AbortReason | null, writes: RunWrites): Promise<void> {
    const { tasks, limits, clock, posts } = this.deps;
    const current = task ? await tasks.get(task.id) : null;
    const attempts = current?.attempts ?? limits.maxAttempts;
    const settlement = settleRun({
      ending,
      abortReason: reason,
      attempts,
      maxAttempts: limits.maxAttempts,
      maxRunMinutes: Math.round(limits.maxRunMs / 60_000),
      retryDelayMs: limits.retryDelayMs,
      fromSchedule: task?.scheduleId != null,
    });
    const change = settlement.run;
    if (!change) return;
    const applied = await writes.posts.atomically(async (tx) => {
      if (!(await tx.runs.transition(run.id, ['running'], change.to, { ...(change.summary !== undefined ? { summary: change.summary } : {}), ...(change.error ? { error: change.error } : {}) }))) return false;
      const open = current?.status === 'in_progress';
      if (task && open && settlement.task) {
        const t = settlement.task;
        if (t.kind === 'complete') await tx.tasks.complete(conversationId, task.id, t.summary);
        else if (t.kind === 'fail') await tx.tasks.fail(conversationId, task.id, t.reason);
        else await tx.tasks.requeue(task.id, clock.now() + t.delayMs, t.reason);
      }
      if (settlement.note) await posts.record(conversationId, run.id, { purpose: 'note', text: settlement.note }, tx);
      return true;
    });
    if (!applied) return;
    if (settlement.schedule && task?.scheduleId != null) await this.deps.scheduleRunEnded?.(task.scheduleId, settlement.schedule);
    this.countEnd(change.to, run);
    if (settlement.task?.kind === 'requeue') {
      const delay = settlement.task.delayMs;
      clock.setTimer(() => this.pumpLater(conversationId), delay);
    }
  }
}
