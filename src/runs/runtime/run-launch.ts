import { executeRun, type RunInput } from '../agent/runner.js';
import type { RunOutcome } from '../../run-records/run-outcome.js';
import type { RunSkills } from '../../agent/run-skills.js';
import { withFirstRead, type ContextRead, type ContextReadResult } from '../../agent/context-read.js';
import type { RunMemory } from '../../agent/context-assembly.js';
import { buildSystemPrompt } from '../../agent/system-prompt.js';
import type { ToolContext } from '../../agent/tools/tool.js';
import type { Person } from '../../access/access-policy.js';
import type { Payer } from '../../budget/budget.js';
import type { ConversationRef } from '../../chat/conversation-ref.js';
import type { Clock } from '../../clock.js';
import type { ConversationStore } from '../../conversations/conversation-store.js';
import type { ToolGrantStore } from '../../conversations/tool-grant-store.js';
import type { RunRow, TaskRow } from '../../db/schema.js';
import type { Logger } from '../../logger.js';
import { channelOverridesFor } from '../../settings/channel-overrides.js';
import type { RunWrites } from './fenced-run-writes.js';
import { goalMessage } from '../goal-message.js';
import type { AgentSetup, RunLimits, RunPlatforms } from './run-deps.js';
import type { RunWorkingStatus } from './run-working-status.js';
import { runSession, sessionEndOf, type RunSession } from './run-session.js';

/**
 * The person a run acts for (DESIGN.md "On whose behalf"): stored with the run when it was claimed, else its
 * task's (a row written before the run kept its own). Null only for work that names nobody.
 */
function principalOf(
  platform: string,
  run: Pick<RunRow, 'principal' | 'principalRoles'>,
  task: Pick<TaskRow, 'requestedBy' | 'requesterRoles'> | null,
): Person | null {
  const userId = run.principal ?? task?.requestedBy ?? null;
  if (userId === null) return null;
  const roles = run.principal !== null ? run.principalRoles : (task?.requesterRoles ?? null);
  return roles && roles.length > 0 ? { platform, userId, roles } : { platform, userId };
}

/** The transcript rows a run's request is built from (the runner's default, `RunnerDeps.historyRows` unset). */
const HISTORY_ROWS = 400;

/** How a parked run goes on: the approval it asked for and what was decided. */
export type RunResume = NonNullable<RunInput['resume']>;

export interface LaunchDeps {
  /** Read for the conversation's stored timezone. */
  conversations: ConversationStore;
  grants: ToolGrantStore;
  agent: AgentSetup;
  /** Live previews of answers (presence) and people's timezones. */
  platforms: Pick<RunPlatforms, 'presence' | 'userTimezone'>;
  clock: Clock;
  logger: Logger;
  limits: Pick<RunLimits, 'maxSteps' | 'contextBudget' | 'askTimeoutMs' | 'defaultTimezone'>;
}

/** One claimed run, registered as active by the coordinator, ready to execute. */
export interface Launch {
  conversationId: string;
  ref: ConversationRef;
  run: RunRow;
  task: TaskRow | null;
  signal: AbortSignal;
  /** Every write of this execution, conditional on the fence its claim wrote (fenced-run-writes.ts). */
  writes: RunWrites;
  working: RunWorkingStatus;
  resume?: RunResume;
  /** An unfinished stream preview goes (as at a shutdown, or when another process took the run over). */
  shuttingDown(): boolean;
  /** Pauses the run's time limit while a person answers a tool's question (ToolContext.holdRunTime). */
  holdTime?: () => () => void;
}

/**
 * Executes a claimed run: whom it acts for, its system prompt, tools, timezone, budget and model, then the
 * agent loop. Owns no slot and records no ending: the coordinator registers the run, the settlement records
 * the outcome this returns.
 */
export class RunLauncher {
  constructor(private readonly deps: LaunchDeps) {}

  async execute(launch: Launch): Promise<RunOutcome> {
    const { ref, run, task } = launch;
    // The thread's session (Slack's Agent Sessions) follows the execution: working, waiting for a person, over.
    const session = runSession(
      this.deps.platforms.presence,
      ref,
      { principalUserId: principalOf(ref.platform, run, task)?.userId ?? null, title: task?.title ?? null },
      this.deps.logger,
    );
    session.started();
    try {
      return await this.executeIn(launch, session);
    } catch (error) {
      session.ended(sessionEndOf({ error }, launch.shuttingDown()));
      throw error;
    }
  }

  private async executeIn(launch: Launch, session: RunSession): Promise<RunOutcome> {
    const { deps } = this;
    const { conversationId, ref, run, task, writes, resume } = launch;
    launch.working.show();
    const principal = principalOf(ref.platform, run, task);
    const start = await this.readStart(launch, principal);
    const timezone = await this.timezoneFor(conversationId, ref.platform, task, start?.read);
    const skills = await this.skillsFor(launch, start?.read.pins);
    const toolContext: ToolContext = {
      conversationId,
      conversation: ref,
      runId: run.id,
      taskId: task?.id ?? null,
      userId: principal?.userId ?? null,
      principal,
      timezone,
      scheduled: task?.fromSchedule === true || task?.createdBy === 'schedule',
      signal: launch.signal,
      ...(launch.holdTime ? { holdRunTime: launch.holdTime } : {}),
      ...(skills ? { skills } : {}),
      now: () => deps.clock.now(),
    };
    const { agent } = deps;
    const { presence } = deps.platforms;
    const toolNames = agent.tools.specsFor(toolContext).map((t) => t.name);
    const openLivePreview = () =>
      presence.openStream(ref, toolContext.userId, {
        beforeMessage: () => writes.posts.recordPreview(conversationId, run.id),
      });
    if (presence.canStream(ref) && agent.streaming !== false)
      launch.working.streamSteps(openLivePreview, launch.shuttingDown, () => deps.clock.now());
    const channel = channelOverridesFor(agent.channels ?? {}, ref);
    // The principal decides approvals and pays (a scheduled run: the schedule's creator).
    const approverId = principal?.userId ?? null;
    const payer: Payer | null = principal ? { platform: principal.platform, userId: principal.userId } : null;
    const budget = agent.budget?.forRun(run.id, payer, run.tokens);
    const span = {
      runId: run.id,
      conversationId,
      platform: ref.platform,
      principal: principal ? `${principal.platform}:${principal.userId}` : null,
      resumed: run.steps > 0 || resume !== undefined,
      ...(budget ? { spentUsd: () => budget.spentUsd() } : {}),
    };
    const traced = (execute: () => Promise<RunOutcome>) =>
      agent.runTracer ? agent.runTracer.trace(span, execute) : execute();
    // A stream still showing steps is closed before the run is settled (and before a shutdown goes on).
    return traced(() =>
      executeRun(
        {
          runId: run.id,
          conversation: ref,
          signal: launch.signal,
          systemPrompt: buildSystemPrompt({
            platform: ref.platform,
            now: deps.clock.now(),
            timezone,
            task,
            maxSteps: deps.limits.maxSteps,
            extra: skills?.prompt ? [...(agent.promptExtras ?? []), skills.prompt] : (agent.promptExtras ?? []),
            toolNames,
            ...(channel.prompt ? { channelPrompt: channel.prompt } : {}),
          }),
          goal: task ? goalMessage(task) : null,
          ...(task?.images && task.images.length > 0 ? { goalImages: task.images } : {}),
          toolContext,
          approverId,
          ...(budget ? { budget } : {}),
          ...(channel.model ? { model: channel.model } : {}),
          ...(resume ? { resume } : {}),
          stepsTaken: run.steps,
          // Where others read the conversation, an answer built on the principal's private material waits for their consent.
          othersRead: presence.othersRead?.(ref) ?? true,
        },
        {
          llm: agent.llm,
          grants: deps.grants,
          tools: agent.tools,
          transcript: writes.transcript,
          runs: writes.runs,
          logger: deps.logger,
          maxSteps: deps.limits.maxSteps,
          contextBudget: deps.limits.contextBudget,
          ...(agent.memory ? { memory: start?.memory ?? agent.memory } : {}),
          askTimeoutMs: deps.limits.askTimeoutMs,
          posts: writes.posts,
          ...(writes.confirmHeld ? { confirmHeld: writes.confirmHeld } : {}),
          now: () => deps.clock.now(),
          activity: (a) => {
            session.activity(a);
            launch.working.activity(a);
          },
          ...(presence.canStream(ref)
            ? {
                // An answer continues in the stream showing the steps before it (Slack's task cards), else opens its own.
                openPreview: () => launch.working.takeStream() ?? openLivePreview(),
                shuttingDown: launch.shuttingDown,
              }
            : {}),
        },
      )
        // Before the steps' stream closes: its end carries the session's state (Slack's chat.stopStream session_status).
        .then((outcome) => {
          session.ended(sessionEndOf({ outcome }, launch.shuttingDown()));
          return outcome;
        })
        .finally(() => launch.working.closeSteps()),
    );
  }

  /**
   * Where the memory reads a request's context in one statement (PostgreSQL): the conversation's row and the skill
   * pins are read with the first request's context, in that one statement, and the run's memory answers its first
   * read with it. Null otherwise (SQLite), and for a resumed run (it writes before its first request): the parts are
   * read one by one.
   */
  private async readStart(
    launch: Launch,
    principal: Person | null,
  ): Promise<{ read: ContextReadResult; memory: RunMemory } | null> {
    const memory = this.deps.agent.memory;
    if (!memory?.readContext || launch.resume !== undefined) return null;
    const { conversationId, ref, task } = launch;
    // As the runner asks (runner.ts: viewer, historyRows' default of 400, memoryOf and the goal).
    const asked: ContextRead = {
      conversationId,
      viewer: principal?.userId ?? null,
      historyRows: HISTORY_ROWS,
      memoryOf: { principal, place: ref, goal: task ? goalMessage(task) : '' },
    };
    const read = await memory.readContext({ ...asked, conversation: true, pins: this.deps.agent.skills !== undefined });
    return { read, memory: { ...memory, readContext: withFirstRead(memory.readContext, asked, read) } };
  }

  /** The skills of this run (null: none enabled here); a resumed run goes on following those it followed. Never fails the run. */
  private async skillsFor(launch: Launch, pins?: ContextReadResult['pins']): Promise<RunSkills | null> {
    const source = this.deps.agent.skills;
    if (!source) return null;
    const { conversationId, ref, run, resume, writes } = launch;
    try {
      return await source.forRun({
        conversation: ref,
        conversationId,
        runId: run.id,
        resumed: run.steps > 0 || resume !== undefined,
        transcript: writes.transcript,
        ...(pins ? { pins } : {}),
      });
    } catch (err) {
      this.deps.logger.warn({ err, runId: run.id }, 'reading the skills of a run failed; it runs without them');
      return null;
    }
  }

  /** The conversation's stored timezone, else the requester's on the platform, else the default. `start`: its row, read. */
  private async timezoneFor(
    conversationId: string,
    platform: string,
    task: TaskRow | null,
    start?: ContextReadResult,
  ): Promise<string> {
    const row =
      start?.conversation !== undefined ? start.conversation : await this.deps.conversations.get(conversationId);
    const stored = row?.timezone;
    if (stored) return stored;
    if (task?.requestedBy) {
      const tz = await this.deps.platforms.userTimezone(platform, task.requestedBy);
      if (tz) return tz;
    }
    return this.deps.limits.defaultTimezone;
  }
}
