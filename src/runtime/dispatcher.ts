import { parseApprovalDecision } from '../agent/approval-decision.js';
import type { Budget } from '../budget/budget.js';
import type { ChatAdapter } from '../chat/chat-adapter.js';
import { channelOf, conversationKey, type ConversationRef } from '../chat/conversation-ref.js';
import type { CommandReply, InboundAction, InboundAttachment, InboundCommand, InboundMessage, InboundSink } from '../chat/inbound.js';
import type { HomeModel, HomeRequest, ScheduleFormResult, ScheduleFormSubmission } from '../chat/schedule-form.js';
import type { ScheduleEditor } from '../commands/schedule-editor.js';
import type { Clock } from '../clock.js';
import { handleCommand } from '../commands/command-router.js';
import type { CommandDeps } from '../commands/command-deps.js';
import { announceStop } from '../commands/stop-command.js';
import type { ConversationStore } from '../conversations/conversation-store.js';
import type { Logger } from '../logger.js';
import type { RunStore } from '../runs/run-store.js';
import type { Store } from '../store/store.js';
import type { TaskService } from '../tasks/task-service.js';
import type { EventDedupe } from '../store/event-dedupe.js';
import { titleFrom } from './goal-message.js';
import type { RunCoordinator } from './run-coordinator.js';
import { notices } from './run-notices.js';
import { parseStopMessage } from './stop-words.js';
import { createAccessPolicy, refusalText, type AccessPolicy, type Person, type RefusalReason } from '../access/access-policy.js';
import { createAuthority, type Authority } from './authority.js';
import { clickAnswers } from '../agent/question-identity.js';
import type { AttachmentIntake } from '../attachments/attachment-intake.js';

/** The person behind an event, as access rules name them. */
function personOf(platform: string, userId: string, roles: readonly string[] | undefined): Person {
  return roles && roles.length > 0 ? { platform, userId, roles } : { platform, userId };
}

export interface DispatcherDeps {
  /** Each message is stored (de-duplication record, task or answer) in one transaction of this store. */
  store: Pick<Store, 'atomically'>;
  conversations: ConversationStore;
  tasks: TaskService;
  runs: RunStore;
  dedupe: EventDedupe;
  coordinator: RunCoordinator;
  adapters: ReadonlyMap<string, ChatAdapter>;
  clock: Clock;
  logger: Logger;
  commands: CommandDeps;
  /** Who may use Errand where (default: everyone, everywhere). */
  access?: AccessPolicy;
  /** Whose work it is: answers, approvals, stops (default: from the access policy). */
  authority?: Authority;
  /** Daily token budgets: a new request past one is refused privately. Absent: no limits. */
  budget?: Pick<Budget, 'refusalFor'>;
  /** Schedule buttons, forms and the App Home, when scheduling is wired. */
  scheduleManagement?: { editor: ScheduleEditor; home: (request: HomeRequest) => Promise<HomeModel> };
  /** Reads files on requests into their tasks. Absent: files are ignored. */
  attachments?: AttachmentIntake;
}

const NO_SCHEDULES = 'Schedules are not available in this installation.';

/** What storing an inbound message decided, inside the same transaction that stored it. */
type Decision =
  | { kind: 'duplicate' }
  | { kind: 'stop'; conversationId: string; all: boolean }
  | { kind: 'refuse'; text: string }
  | { kind: 'denied'; reason: RefusalReason }
  | { kind: 'over_budget'; note: string }
  | { kind: 'answer'; runId: string }
  | { kind: 'task'; conversationId: string; taskId: number; busy: boolean; awaitingApproval: boolean; files: Files | null };

/** A request's files, to read once the platform is acknowledged. */
interface Files {
  request: string;
  attachments: readonly InboundAttachment[];
}

/** A stored message and what is left to do about it once the platform may be acknowledged. */
interface StoredMessage {
  decision: Exclude<Decision, { kind: 'duplicate' }>;
  adapter: ChatAdapter;
  ref: ConversationRef;
  userId: string;
}

/**
 * Routes every inbound event: de-duplicate first (persisted), then stop fast path, answer to a
 * waiting question, queue behind a busy run, or start a run. The decision and the write happen in
 * one synchronous transaction, so a message arriving while a run finishes is never lost: it is either
 * a pending task the finishing run's successor claims, or it starts a run itself.
 */
export class Dispatcher implements InboundSink {
  private readonly access: AccessPolicy;
  private readonly authority: Authority;
  /** Conversations (and people) already told they may not use Errand there: told once, not at every message. */
  private readonly refused = new Set<string>();

  constructor(private readonly deps: DispatcherDeps) {
    this.access = deps.access ?? createAccessPolicy(undefined);
    this.authority = deps.authority ?? createAuthority({ access: this.access, runs: deps.runs, tasks: deps.tasks });
  }

  /**
   * Resolves once the message is stored (de-duplication record plus its task, recorded answer or
   * stop), so an adapter may acknowledge the platform then. What follows — starting the run,
   * posting the "queued" note, announcing a stop — goes on without delaying that; its errors are logged.
   */
  async onMessage(message: InboundMessage): Promise<void> {
    const stored = await this.store(message);
    if (stored) void this.followUp(stored).catch((err: unknown) => this.deps.logger.error({ err, messageId: message.messageId }, 'handling a stored message failed'));
  }

  /** Whether Errand holds this conversation: one indexed lookup, so adapters may ask before any platform call. */
  async knowsConversation(ref: ConversationRef): Promise<boolean> {
    return (await this.deps.conversations.get(conversationKey(ref))) !== null;
  }

  private async store(message: InboundMessage): Promise<StoredMessage | null> {
    const { deps } = this;
    const ref0 = message.conversation;
    // Slack's `ts` is unique per channel only, so the channel is part of the key. Keys written
    // before it was are not consulted: a redelivery in the minutes around that upgrade may be answered once more.
    const dedupeKey = `msg:${ref0.platform}:${ref0.workspace}:${ref0.channel}:${message.messageId}`;
    const adapter = deps.adapters.get(ref0.platform);
    if (!adapter) {
      deps.logger.error({ platform: ref0.platform }, 'message from a platform without an adapter');
      return null;
    }
    const person = personOf(ref0.platform, message.userId, message.roles);
    const verdict = this.access.check(person, { platform: ref0.platform, channel: ref0.channel, direct: message.direct === true });
    if (!verdict.allowed) {
      // No model call, no task: only the de-duplication record, so a redelivery is not refused twice.
      if (!(await deps.dedupe.firstSight(dedupeKey, deps.clock.now()))) return null;
      return { decision: { kind: 'denied', reason: verdict.reason }, adapter, ref: ref0, userId: message.userId };
    }
    const stop = parseStopMessage(message.text);
    // Read by primary key on a shared database; for one process, from memory after a person's first message of the day. Stops and answers are never refused.
    const budgetNote = stop ? null : ((await deps.budget?.refusalFor({ platform: ref0.platform, userId: message.userId })) ?? null);
    let ref: ConversationRef = ref0;
    // A refused request gets no thread of its own: the refusal is private and nothing else follows.
    const opensThread = message.startThread !== undefined && budgetNote === null;
    if (opensThread) {
      // De-duplicate before opening a thread, so a redelivery never opens a second one. The
      // thread's conversation is only known once it is open, so this path stores after that call.
      if (!(await deps.dedupe.firstSight(dedupeKey, deps.clock.now()))) return null;
      try {
        ref = await adapter.openThread(channelOf(ref0), message.messageId, message.startThread.name);
      } catch (err) {
        deps.logger.warn({ err }, 'opening a thread failed; answering in the channel');
      }
    }

    const decision = await deps.store.atomically(async (tx): Promise<Decision> => {
      if (!opensThread && !(await tx.dedupe.firstSight(dedupeKey, deps.clock.now()))) return { kind: 'duplicate' };
      const conversationId = await tx.conversations.ensure(ref, message.timezone ?? null);
      if (stop) {
        const may = await (stop.all ? this.authority.mayStopAll(conversationId, person, tx) : this.authority.mayStop(conversationId, person, tx));
        if (!may) return { kind: 'refuse', text: notices.notAllowedToStop };
        return { kind: 'stop', conversationId, all: stop.all };
      }
      const active = await tx.runs.active(conversationId);
      const approval = active?.status === 'waiting_user' ? active.question?.approval : undefined;
      if (active?.status === 'waiting_user') {
        const isDecision = approval === undefined || parseApprovalDecision(message.text) !== null;
        const allowed = this.authority.mayAnswer(active.question, person);
        // Someone else's decision word is refused; someone else's message to a waiting question becomes a to-do.
        if (isDecision && approval && !allowed) return { kind: 'refuse', text: notices.notAllowedToDecide(active.question?.userId ?? '') };
        if (isDecision && allowed) {
          // Stored with the run, so the answer survives a crash before the run resumes.
          await tx.runs.recordAnswer(active.id, { text: message.text, userId: message.userId, source: 'typed' });
          return { kind: 'answer', runId: active.id };
        }
      }
      if (budgetNote !== null) return { kind: 'over_budget', note: budgetNote };
      const intake = deps.attachments;
      const attachments = intake ? (message.attachments ?? []) : [];
      const empty = message.text.trim() === '';
      const request = !empty ? message.text : attachments.length > 0 ? '(The user sent only attachments, without a message.)' : '(The user mentioned you without a message.)';
      const added = await tx.tasks.add({
        conversationId,
        title: empty && attachments.length > 0 ? `📎 ${attachments[0]!.name}` : titleFrom(message.text),
        description: intake && attachments.length > 0 ? intake.unreadRequest(request, attachments) : request,
        createdBy: 'user',
        requestedBy: message.userId,
        requesterRoles: message.roles ?? null,
        sourceMessageId: message.messageId,
      });
      if (!added.ok) throw new Error(added.error);
      // Held until its files are read (after the acknowledgement), so no run starts without them.
      if (intake && attachments.length > 0) await intake.hold(added.task.id, tx.attachments);
      const files = attachments.length > 0 ? { request, attachments } : null;
      return { kind: 'task', conversationId, taskId: added.task.id, busy: active !== null, awaitingApproval: approval !== undefined, files };
    });
    if (decision.kind === 'duplicate') {
      deps.logger.debug({ messageId: message.messageId }, 'duplicate delivery ignored');
      return null;
    }
    return { decision, adapter, ref, userId: message.userId };
  }

  private async followUp({ decision, adapter, ref, userId }: StoredMessage): Promise<void> {
    const { deps } = this;
    if (decision.kind === 'stop') {
      const r = await deps.coordinator.stopConversation(decision.conversationId, decision.all);
      if (r.stoppedRun || r.cancelledPending > 0) announceStop(deps.commands, decision.conversationId, userId, r.stoppedTaskId, r.cancelledPending);
      else deps.commands.note(decision.conversationId, notices.nothingRunning);
      return;
    }
    if (decision.kind === 'refuse') {
      await adapter.postEphemeral(ref, userId, decision.text).catch((err: unknown) => deps.logger.warn({ err }, 'posting a private refusal failed'));
      return;
    }
    if (decision.kind === 'denied') {
      deps.logger.info({ platform: ref.platform, channel: ref.channel, userId, reason: decision.reason }, 'access refused');
      const once = `${conversationKey(ref)}|${userId}`;
      if (this.refused.has(once)) return;
      if (this.refused.size >= 10_000) this.refused.clear();
      this.refused.add(once);
      await adapter.postEphemeral(ref, userId, refusalText(decision.reason)).catch((err: unknown) => deps.logger.warn({ err }, 'posting a private refusal failed'));
      return;
    }
    if (decision.kind === 'over_budget') {
      await adapter.postEphemeral(ref, userId, decision.note).catch((err: unknown) => deps.logger.warn({ err }, 'posting a budget refusal failed'));
      return;
    }
    if (decision.kind === 'answer') {
      const run = await deps.runs.get(decision.runId);
      // The recorded answer is delivered from the run itself; a resume that finds no slot keeps it there.
      if (!run || run.status !== 'waiting_user' || !(await deps.coordinator.answer(run, null, null))) {
        deps.logger.warn({ runId: decision.runId }, 'answer arrived for a run that is no longer waiting');
      }
      return;
    }
    const { conversationId } = decision;
    if (decision.files) await this.readFiles(conversationId, decision.taskId, decision.files);
    const started = await deps.coordinator.startNext(conversationId);
    if (started.kind === 'started' && started.taskId === decision.taskId) return;
    if (started.kind === 'stopping') return;
    // A claim running beside this one (a pump after another run ended) may have started the task itself.
    if (started.kind === 'busy_conversation' && (await deps.tasks.get(decision.taskId))?.status !== 'pending') return;
    if (decision.awaitingApproval) return deps.commands.note(conversationId, notices.queuedBehindApproval(decision.taskId));
    const why =
      decision.busy || started.kind === 'busy_conversation' || started.kind === 'started'
        ? "I'll start on it when I finish what I'm doing here."
        : started.kind === 'busy_global'
          ? "I'm busy in other conversations and will start on it as soon as I can."
          : 'It is waiting for the tasks ahead of it.';
    deps.commands.note(conversationId, notices.queued(decision.taskId, why));
  }

  async onCommand(command: InboundCommand): Promise<CommandReply> {
    const person = personOf(command.channel.platform, command.userId, command.roles);
    const verdict = this.access.check(person, { platform: command.channel.platform, channel: command.channel.channel, direct: command.direct === true });
    if (!verdict.allowed) {
      this.deps.logger.info({ platform: command.channel.platform, channel: command.channel.channel, userId: command.userId, command: command.name, reason: verdict.reason }, 'access refused');
      return { text: refusalText(verdict.reason) };
    }
    try {
      return await handleCommand(command, this.deps.commands);
    } catch (err) {
      this.deps.logger.error({ err, command: command.name }, 'command failed');
      return { text: `Sorry, \`/${command.name}\` failed. The error was logged; try again in a moment.` };
    }
  }

  async onHomeOpened(request: HomeRequest): Promise<HomeModel> {
    const management = this.deps.scheduleManagement;
    if (!management) return { conversations: [], schedules: [], newSchedule: null };
    return management.home(request);
  }

  async onScheduleForm(submission: ScheduleFormSubmission): Promise<ScheduleFormResult> {
    const management = this.deps.scheduleManagement;
    if (!management) return { kind: 'errors', errors: { prompt: NO_SCHEDULES }, form: { scheduleId: submission.scheduleId, values: submission.values } };
    return management.editor.onSubmit(submission);
  }

  async onAction(action: InboundAction): Promise<CommandReply | null> {
    const { deps } = this;
    if (action.kind === 'schedule') {
      const management = deps.scheduleManagement;
      if (!management) return { text: NO_SCHEDULES };
      const person = personOf(action.platform, action.userId, action.roles);
      try {
        return await management.editor.onAction(action, person);
      } catch (err) {
        deps.logger.error({ err, op: action.op, scheduleId: action.scheduleId }, 'schedule button failed');
        return { text: 'Sorry, that failed. The error was logged; try again in a moment.' };
      }
    }
    const run = await deps.runs.get(action.runId);
    if (!run) return { text: 'That run no longer exists.' };
    const ref = deps.conversations.refOf(run.conversationId);
    const where = action.conversation ?? ref;
    if (!where) return { text: 'That run no longer exists.' };
    const person = personOf(where.platform, action.userId, action.roles);
    const verdict = this.access.check(person, { platform: where.platform, channel: where.channel, direct: action.direct === true });
    if (!verdict.allowed) {
      deps.logger.info({ platform: where.platform, channel: where.channel, userId: action.userId, action: action.kind, reason: verdict.reason }, 'access refused');
      return { text: refusalText(verdict.reason) };
    }
    if (action.kind === 'stop') {
      if (run.status !== 'running' && run.status !== 'waiting_user') return { text: 'That run has already finished.' };
      if (!(await this.authority.mayStop(run.conversationId, person))) return { text: notices.notAllowedToStop };
      const r = await deps.coordinator.stopConversation(run.conversationId, false);
      if (r.stoppedRun) announceStop(deps.commands, run.conversationId, action.userId, r.stoppedTaskId, 0);
      return null;
    }
    if (!(await deps.dedupe.firstSight(`action:${where.platform}:${where.workspace}:${where.channel}:${action.eventId}`, deps.clock.now()))) return null;
    if (run.status !== 'waiting_user') return { text: notices.alreadyAnswered };
    // A button answers only its own question: one left on an earlier question (or approval) of this run,
    // or posted before buttons named their question, changes nothing and its clicker is told privately.
    if (action.questionId === null) return { text: notices.oldButton };
    if (!clickAnswers(run.question, action.questionId)) return { text: notices.alreadyAnswered };
    if (!this.authority.mayAnswer(run.question, person)) {
      const owner = run.question?.userId ?? '';
      return { text: run.question?.approval ? notices.notAllowedToDecide(owner) : notices.notAllowedToAnswer(owner) };
    }
    // Kept with the run only while that very question still waits unanswered, so a click racing a typed
    // answer (and the next question it leads to) cannot land on the next one; then delivered from the run.
    if (!(await deps.runs.recordAnswer(run.id, { text: action.answer, userId: action.userId, source: 'click' }, action.questionId))) return { text: notices.alreadyAnswered };
    const answered = await deps.runs.get(run.id);
    if (!answered || answered.status !== 'waiting_user' || !(await deps.coordinator.answer(answered, null, null))) {
      // Recorded answers are due at once: whoever resumes the run (here or another process) delivers it.
      deps.logger.debug({ runId: run.id }, 'a clicked answer is kept with its run until it resumes');
    }
    return null;
  }

  /** Reads a request's files into its task and says in the thread which were not read, and why. */
  private async readFiles(conversationId: string, taskId: number, files: Files): Promise<void> {
    const intake = this.deps.attachments;
    if (!intake) return;
    let notes: string[];
    try {
      notes = await intake.read(taskId, files.request, files.attachments);
    } catch (err) {
      // The task stays held and then starts with its files named as unread.
      this.deps.logger.error({ err, taskId }, 'reading attachments failed');
      return;
    }
    if (notes.length > 0) this.deps.commands.note(conversationId, notes.join('\n'));
  }
}
