import type { AttachmentIntake } from '../attachments/attachment-intake.js';
import { refusalText, type RefusalReason } from '../access/access-policy.js';
import { conversationKey, type ConversationRef } from '../chat/conversation-ref.js';
import type { InboundAttachment } from '../chat/inbound.js';
import type { Presence } from '../chat/presence.js';
import type { Clock } from '../clock.js';
import type { CommandDeps } from '../commands/command-deps.js';
import { announceStop } from '../commands/stop-command.js';
import type { Logger } from '../logger.js';
import type { OutboxChanges } from '../outbox/outbox.js';
import type { RunStore } from '../runs/run-store.js';
import type { TaskService } from '../tasks/task-service.js';
import type { RunCoordinator } from './run-coordinator.js';
import { notices } from './run-notices.js';

/** What storing an inbound message decided, inside the same transaction that stored it. */
export type Decision =
  | { kind: 'duplicate' }
  | { kind: 'stop'; conversationId: string; all: boolean }
  | { kind: 'refuse'; conversationId: string; text: string }
  | { kind: 'denied'; reason: RefusalReason }
  | { kind: 'over_budget'; conversationId: string; note: string }
  | { kind: 'answer'; runId: string }
  | { kind: 'task'; conversationId: string; taskId: number; busy: boolean; awaitingApproval: boolean; files: Files | null };

/** A request's files, to read once the platform is acknowledged. */
export interface Files {
  request: string;
  attachments: readonly InboundAttachment[];
}

/** A stored message and what is left to do about it once the platform may be acknowledged. */
export interface StoredMessage {
  decision: Exclude<Decision, { kind: 'duplicate' }>;
  ref: ConversationRef;
  userId: string;
}

/**
 * How long a request held back only by the global run limit waits before Errand says it is busy elsewhere.
 * A slot usually frees within a few hundred ms; a note for that wait would double the posts in the
 * thread for nothing, so it is said only when the wait is real.
 */
export const BUSY_ELSEWHERE_NOTE_DELAY_MS = 2_000;

export interface FollowUpDeps {
  runs: RunStore;
  tasks: TaskService;
  coordinator: Pick<RunCoordinator, 'answer' | 'startNext' | 'stopConversation'>;
  commands: CommandDeps;
  /** Private notices in a conversation Errand holds: recorded, delivered in order with its posts. */
  changes: Pick<OutboxChanges, 'recordEphemeral'>;
  /** The private refusal where Errand holds no conversation (access denied there): best effort, as status. */
  presence: Pick<Presence, 'tellPrivately'>;
  logger: Logger;
  /** Arms the wait before the "busy in other conversations" note. */
  clock: Clock;
  /** Reads files on requests into their tasks. Absent: files are ignored. */
  attachments?: AttachmentIntake;
}

/**
 * What follows a stored message once the platform may be acknowledged: the stop carried out and announced, a
 * refusal told privately, an answer delivered, a task's files read and its run started (or a note that it waits).
 */
export class MessageFollowUp {
  /** Conversations (and people) already told they may not use Errand there: told once, not at every message. */
  private readonly refused = new Set<string>();
  /** The "busy elsewhere" notes waiting for their moment, cleared at shutdown so none fires on a closed store. */
  private readonly waitingNotes = new Set<unknown>();

  constructor(private readonly deps: FollowUpDeps) {}

  /** Drops the notes still waiting: a task still queued at shutdown is picked up after the next start. */
  stop(): void {
    for (const timer of this.waitingNotes) this.deps.clock.clearTimer(timer);
    this.waitingNotes.clear();
  }

  async handle({ decision, ref, userId }: StoredMessage): Promise<void> {
    const { deps } = this;
    if (decision.kind === 'stop') {
      const r = await deps.coordinator.stopConversation(decision.conversationId, decision.all);
      if (r.stoppedRun || r.cancelledPending > 0) announceStop(deps.commands, decision.conversationId, userId, r.stoppedTaskId, r.cancelledPending);
      else deps.commands.note(decision.conversationId, notices.nothingRunning);
      return;
    }
    if (decision.kind === 'refuse') {
      await deps.changes.recordEphemeral(decision.conversationId, userId, decision.text).catch((err: unknown) => deps.logger.warn({ err }, 'recording a private refusal failed'));
      return;
    }
    if (decision.kind === 'denied') {
      deps.logger.info({ platform: ref.platform, channel: ref.channel, userId, reason: decision.reason }, 'access refused');
      const once = `${conversationKey(ref)}|${userId}`;
      if (this.refused.has(once)) return;
      if (this.refused.size >= 10_000) this.refused.clear();
      this.refused.add(once);
      await deps.presence.tellPrivately(ref, userId, refusalText(decision.reason)).catch((err: unknown) => deps.logger.warn({ err }, 'posting a private refusal failed'));
      return;
    }
    if (decision.kind === 'over_budget') {
      await deps.changes.recordEphemeral(decision.conversationId, userId, decision.note).catch((err: unknown) => deps.logger.warn({ err }, 'recording a budget refusal failed'));
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
    if (!decision.busy && started.kind === 'busy_global') return this.noteIfStillWaiting(conversationId, decision.taskId);
    const why =
      decision.busy || started.kind === 'busy_conversation' || started.kind === 'started'
        ? "I'll start on it when I finish what I'm doing here."
        : 'It is waiting for the tasks ahead of it.';
    deps.commands.note(conversationId, notices.queued(decision.taskId, why));
  }

  /**
   * Held back only by the global run limit: says so once the wait has lasted BUSY_ELSEWHERE_NOTE_DELAY_MS and the
   * task has still not started (a slot usually frees sooner; then nothing is said).
   */
  private noteIfStillWaiting(conversationId: string, taskId: number): void {
    const { deps } = this;
    const timer = deps.clock.setTimer(() => {
      this.waitingNotes.delete(timer);
      deps.tasks
        .get(taskId)
        .then((task) => {
          if (task?.status === 'pending' && task.attempts === 0) deps.commands.note(conversationId, notices.queued(taskId, "I'm busy in other conversations and will start on it as soon as I can."));
        })
        .catch((err: unknown) => deps.logger.warn({ err, taskId }, 'checking whether a queued task has started failed'));
    }, BUSY_ELSEWHERE_NOTE_DELAY_MS);
    this.waitingNotes.add(timer);
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
