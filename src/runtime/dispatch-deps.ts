import type { RunPosts } from '../agent/agent-types.js';
import type { AccessPolicy, Person } from '../access/access-policy.js';
import type { AttachmentIntake } from '../attachments/attachment-intake.js';
import type { Budget } from '../budget/budget.js';
import type { CommandReply, InboundAction } from '../chat/inbound.js';
import type { Presence } from '../chat/presence.js';
import type { ThreadOpener } from '../outbox/thread-opener.js';
import type { UnrecordedNotices } from '../outbox/unrecorded-notice.js';
import type { Clock } from '../clock.js';
import type { CommandDeps } from '../commands/command-deps.js';
import type { ConversationStore } from '../conversations/conversation-store.js';
import type { Logger } from '../logger.js';
import type { Outbox, OutboxChanges } from '../outbox/outbox.js';
import type { RunStore } from '../run-records/run-store.js';
import type { EventDedupe } from '../store/event-dedupe.js';
import type { Store } from '../store/store.js';
import type { TaskService } from '../tasks/task-service.js';
import type { Authority } from '../runs/authority.js';
import type { PrivateAnswerChoiceDeps } from '../runs/runtime/private-answer-choice.js';
import type { RunCoordinator } from '../runs/runtime/run-coordinator.js';

/** Where inbound events are stored and looked up. */
export interface DispatchData {
  /** Each message is stored (de-duplication record, task or answer) in one transaction of this store; held answers are decided in it. */
  store: PrivateAnswerChoiceDeps['store'] & Pick<Store, 'mentions'>;
  conversations: ConversationStore;
  tasks: TaskService;
  runs: RunStore;
  dedupe: EventDedupe;
  /** Private refusals in a conversation Errand holds go through the outbox, and so does an answer its owner shares. */
  changes: Pick<OutboxChanges, 'recordEphemeral'> & Pick<RunPosts, 'record'> & Pick<Outbox, 'recordFiles'>;
  /**
   * Whether a new task of an idle conversation is claimed in the transaction that stores it (one commit, not two).
   * On PostgreSQL that transaction holds the conversation's row from its upsert on, and every claim takes that
   * row first, so the claim inside it cannot lose a race to another process.
   */
  claimWithMessage?: boolean;
}

/** What routing needs of the platforms; it writes nothing on them but through the outbox and these ports. */
export interface DispatchPlatforms {
  /** Whether the platform is connected (a message from another is dropped). */
  has(platform: string): boolean;
  /** Opens the thread of a Discord mention in a channel: part of receiving it (see ThreadOpener). */
  threads: ThreadOpener;
  /** The session state of a thread whose Stop was pressed. */
  presence: Pick<Presence, 'setSession'>;
  /** The refusal where access is denied, with no conversation to record it in. */
  notices: UnrecordedNotices;
}

/** Who may do what: checked before anything is stored or started. */
export interface DispatchRules {
  /** Who may use Errand where (default: everyone, everywhere). */
  access?: AccessPolicy;
  /** Whose work it is: answers, approvals, stops (default: from the access policy). */
  authority?: Authority;
  /** Daily token budgets: a new request past one is refused privately. Absent: no limits. */
  budget?: Pick<Budget, 'refusalFor'>;
}

export interface DispatcherDeps {
  data: DispatchData;
  coordinator: RunCoordinator;
  platforms: DispatchPlatforms;
  clock: Clock;
  logger: Logger;
  commands: CommandDeps;
  rules?: DispatchRules;
  /** Schedule buttons, when scheduling is wired (its forms and the App Home come in through its own SurfaceSink). */
  scheduleManagement?: { editor: ScheduleButtons };
  /** Reads files on requests into their tasks. Absent: files are ignored. */
  attachments?: AttachmentIntake;
}

/** What the dispatcher asks of the schedules' editor (src/schedules plugs it in): a schedule button pressed by a person. */
export interface ScheduleButtons {
  onAction(action: Extract<InboundAction, { kind: 'schedule' }>, person: Person): Promise<CommandReply>;
}
