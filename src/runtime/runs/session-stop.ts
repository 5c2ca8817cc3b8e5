import { refusalText, type AccessPolicy } from '../../access/access-policy.js';
import type { SessionStop } from '../../chat/agent-session.js';
import { conversationKey } from '../../chat/conversation-ref.js';
import type { Presence } from '../../chat/presence.js';
import type { UnrecordedNotices } from '../../outbox/unrecorded-notice.js';
import type { Clock } from '../../clock.js';
import type { CommandDeps } from '../../commands/command-deps.js';
import { announceStop } from '../../commands/stop-command.js';
import type { ConversationStore } from '../../conversations/conversation-store.js';
import type { Logger } from '../../logger.js';
import type { OutboxChanges } from '../../outbox/outbox.js';
import type { RunStore } from '../../runs/run-store.js';
import type { EventDedupe } from '../../store/event-dedupe.js';
import type { Authority } from '../../runs/authority.js';
import { personOf } from '../../access/access-policy.js';
import type { RunCoordinator } from './run-coordinator.js';
import { notices } from '../../runs/run-notices.js';
import { showSession } from './session-shown.js';

export interface SessionStopDeps {
  conversations: ConversationStore;
  runs: Pick<RunStore, 'active'>;
  dedupe: EventDedupe;
  coordinator: Pick<RunCoordinator, 'stopConversation'>;
  /** Where the stop note goes (the thread is told, as after `/stop`). */
  commands: CommandDeps;
  /** A refusal inside a conversation Errand holds is private and durable (the outbox). */
  changes: Pick<OutboxChanges, 'recordEphemeral'>;
  presence: Pick<Presence, 'setSession'>;
  /** The refusal of a person who may not use Errand here: no conversation is recorded for it. */
  notices: UnrecordedNotices;
  access: AccessPolicy;
  authority: Authority;
  clock: Clock;
  logger: Logger;
}

/**
 * The platform's own Stop on a thread's session (Slack's `agent_session_stopped`) stops that thread's run as
 * `/stop` there does — from whichever process got the event, since the stop is the run's row (its owner aborts it
 * when woken) — and tells the thread. Only someone who may stop it (the principal or an admin, under access
 * rules: the same rule as `/stop`); anyone else is told privately and the run goes on. With no run to stop the
 * session is shown idle, so a session left working (its process died) never keeps a spinner.
 */
export async function handleSessionStop(stop: SessionStop, deps: SessionStopDeps): Promise<void> {
  const ref = stop.conversation;
  if (
    !(await deps.dedupe.firstSight(
      `session-stop:${ref.platform}:${ref.workspace}:${ref.channel}:${ref.thread ?? '-'}:${stop.eventId}`,
      deps.clock.now(),
    ))
  )
    return;
  const person = personOf(ref.platform, stop.userId, stop.roles);
  const verdict = deps.access.check(person, {
    platform: ref.platform,
    channel: ref.channel,
    direct: stop.direct === true,
  });
  if (!verdict.allowed) {
    deps.logger.info(
      { platform: ref.platform, channel: ref.channel, userId: stop.userId, reason: verdict.reason },
      'access refused: a session stop changes nothing',
    );
    await deps.notices
      .tellPrivately(ref, stop.userId, refusalText(verdict.reason))
      .catch((err: unknown) => deps.logger.warn({ err }, 'telling a refused person failed'));
    return;
  }
  const conversationId = conversationKey(ref);
  const known = (await deps.conversations.get(conversationId)) !== null;
  const run = known ? await deps.runs.active(conversationId) : null;
  if (!run) {
    deps.logger.info({ conversationId, userId: stop.userId }, 'Stop on a session with no run: showing it idle');
    return void deps.presence
      .setSession(ref, { state: 'idle' })
      .catch((err: unknown) =>
        deps.logger.warn({ err, conversationId }, 'showing the session of the thread as idle failed'),
      );
  }
  if (!(await deps.authority.mayStop(conversationId, person))) {
    deps.logger.info(
      { conversationId, runId: run.id, userId: stop.userId },
      'a session stop by someone who may not stop this run: it goes on',
    );
    await deps.changes
      .recordEphemeral(conversationId, stop.userId, notices.notAllowedToStop)
      .catch((err: unknown) => deps.logger.warn({ err }, 'recording a private notice failed'));
    return;
  }
  const result = await deps.coordinator.stopConversation(conversationId, false);
  deps.logger.info(
    { conversationId, runId: run.id, userId: stop.userId, stopped: result.stoppedRun },
    'stopped by the session Stop',
  );
  if (result.stoppedRun) announceStop(deps.commands, conversationId, stop.userId, result.stoppedTaskId, 0);
  // Ended on its own meanwhile: its end showed the session idle already, unless its process died first.
  else showSession(deps, conversationId, 'idle');
}
