import type { UnrecordedNotices } from '../../outbox/unrecorded-notice.js';
import type { Clock } from '../../clock.js';
import type { CommandDeps } from '../../commands/command-deps.js';
import type { Logger } from '../../logger.js';
import type { OutboxChanges } from '../../outbox/outbox.js';
import type { TaskService } from '../../tasks/task-service.js';
import type { TaskStarts } from '../../runs/runtime/task-starts.js';
import type { Saying } from './follow-up-sayings.js';

/**
 * How long a request held back only by the global run limit waits before Errand says it is busy elsewhere.
 * A slot usually frees within a few hundred ms; a note for that wait would double the posts in the
 * thread for nothing, so it is said only when the wait is real.
 */
export const BUSY_ELSEWHERE_NOTE_DELAY_MS = 2_000;

export interface FollowUpTellerDeps {
  commands: Pick<CommandDeps, 'note'>;
  /** Private notices in a conversation Errand holds: recorded, delivered in order with its posts. */
  changes: Pick<OutboxChanges, 'recordEphemeral'>;
  /** The private refusal where Errand holds no conversation (access denied there): best effort, never a row. */
  notices: UnrecordedNotices;
  tasks: Pick<TaskService, 'get'>;
  /** Arms the wait before the "busy in other conversations" note. */
  clock: Clock;
  logger: Logger;
  /** Tasks started in this process: a note waiting for one is dropped then, with no read of the task. */
  starts?: Pick<TaskStarts, 'listen'>;
}

/** Says what the follow-up of a message has to say, each kind by its one route. */
export class FollowUpTeller {
  /** The "busy elsewhere" notes waiting for their moment, by task, cleared at shutdown so none fires on a closed store. */
  private readonly waitingNotes = new Map<number, unknown>();
  private readonly unlisten: (() => void) | undefined;

  constructor(private readonly deps: FollowUpTellerDeps) {
    this.unlisten = deps.starts?.listen((taskId) => this.drop(taskId));
  }

  async tell(sayings: readonly Saying[]): Promise<void> {
    const { deps } = this;
    for (const s of sayings) {
      switch (s.to) {
        case 'thread':
          deps.commands.note(s.conversationId, s.text);
          break;
        case 'thread_if_still_waiting': {
          // Said once BUSY_ELSEWHERE_NOTE_DELAY_MS have passed and the task has still not started (here: the note
          // is dropped when it starts; elsewhere: the read below).
          this.drop(s.taskId);
          const timer = deps.clock.setTimer(() => {
            this.waitingNotes.delete(s.taskId);
            deps.tasks
              .get(s.taskId)
              .then((task) => {
                if (task?.status === 'pending' && task.attempts === 0) deps.commands.note(s.conversationId, s.text);
              })
              .catch((err: unknown) =>
                deps.logger.warn({ err, taskId: s.taskId }, 'checking whether a queued task has started failed'),
              );
          }, BUSY_ELSEWHERE_NOTE_DELAY_MS);
          this.waitingNotes.set(s.taskId, timer);
          break;
        }
        case 'person':
          await deps.changes
            .recordEphemeral(s.conversationId, s.userId, s.text)
            .catch((err: unknown) => deps.logger.warn({ err }, 'recording a private notice failed'));
          break;
        case 'outsider':
          await deps.notices
            .tellPrivately(s.ref, s.userId, s.text)
            .catch((err: unknown) => deps.logger.warn({ err }, 'posting a private refusal failed'));
          break;
      }
    }
  }

  /** Drops the notes still waiting: a task still queued at shutdown is picked up after the next start. */
  stop(): void {
    this.unlisten?.();
    for (const timer of this.waitingNotes.values()) this.deps.clock.clearTimer(timer);
    this.waitingNotes.clear();
  }

  /** Drops the note waiting for `taskId`, if any. */
  private drop(taskId: number): void {
    const timer = this.waitingNotes.get(taskId);
    if (timer === undefined) return;
    this.deps.clock.clearTimer(timer);
    this.waitingNotes.delete(taskId);
  }
}
