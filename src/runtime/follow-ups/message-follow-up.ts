import type { AttachmentIntake } from '../../attachments/attachment-intake.js';
import { conversationKey } from '../../chat/conversation-ref.js';
import type { UnrecordedNotices } from '../../outbox/unrecorded-notice.js';
import type { Clock } from '../../clock.js';
import type { CommandDeps } from '../../commands/command-deps.js';
import type { Logger } from '../../logger.js';
import type { OutboxChanges } from '../../outbox/outbox.js';
import type { RunStore } from '../../run-records/run-store.js';
import type { TaskService } from '../../tasks/task-service.js';
import { carryToRuns } from './follow-up-runs.js';
import { sayingsFor } from './follow-up-sayings.js';
import { FollowUpTeller } from './follow-up-teller.js';
import type { RunCoordinator } from '../../runs/runtime/run-coordinator.js';
import type { StoredMessage } from './stored-message.js';

export interface FollowUpDeps {
  runs: RunStore;
  tasks: TaskService;
  coordinator: Pick<RunCoordinator, 'answer' | 'startNext' | 'startClaimed' | 'stopConversation' | 'taskStarts'>;
  commands: CommandDeps;
  /** Private notices in a conversation Errand holds: recorded, delivered in order with its posts. */
  changes: Pick<OutboxChanges, 'recordEphemeral'>;
  /** The private refusal where Errand holds no conversation (access denied there): best effort, never a row. */
  notices: UnrecordedNotices;
  logger: Logger;
  /** Arms the wait before the "busy in other conversations" note. */
  clock: Clock;
  /** Reads files on requests into their tasks. Absent: files are ignored. */
  attachments?: AttachmentIntake;
}

/**
 * What follows a stored message once the platform may be acknowledged, in one pass: its files read, the
 * runs told (a stop carried out, an answer delivered, the task started or left queued), then what that
 * means said, each kind of saying by its one route (follow-up-teller.ts).
 */
export class MessageFollowUp {
  /** Conversations (and people) already told they may not use Errand there: told once, not at every message. */
  private readonly refused = new Set<string>();
  private readonly teller: FollowUpTeller;

  constructor(private readonly deps: FollowUpDeps) {
    this.teller = new FollowUpTeller({ ...deps, starts: deps.coordinator.taskStarts });
  }

  /** Drops the notes still waiting: a task still queued at shutdown is picked up after the next start. */
  stop(): void {
    this.teller.stop();
  }

  async handle(stored: StoredMessage): Promise<void> {
    const { decision, ref, userId } = stored;
    const { deps } = this;
    if (decision.kind === 'denied') {
      deps.logger.info(
        { platform: ref.platform, channel: ref.channel, userId, reason: decision.reason },
        'access refused',
      );
      const once = `${conversationKey(ref)}|${userId}`;
      if (this.refused.has(once)) return;
      if (this.refused.size >= 10_000) this.refused.clear();
      this.refused.add(once);
    }
    // A request's files are read into its task before its run may start; what was not read is said with the rest.
    let fileNotes: string[] = [];
    if (decision.kind === 'task' && decision.files && deps.attachments) {
      try {
        fileNotes = await deps.attachments.read(
          decision.taskId,
          decision.files.request,
          decision.files.attachments,
          decision.conversationId,
        );
      } catch (err) {
        // The task stays held and then starts with its files named as unread.
        deps.logger.error({ err, taskId: decision.taskId }, 'reading attachments failed');
      }
    }
    const outcome = await carryToRuns(decision, deps);
    const sayings = sayingsFor(stored, outcome, fileNotes);
    await this.teller.tell(sayings);
  }
}
