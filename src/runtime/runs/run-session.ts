import type { ActivityReport } from '../../runs/run-activity.js';
import type { RunOutcome } from '../../runs/run-outcome.js';
import type { SessionState, SessionUpdate } from '../../chat/agent-session.js';
import type { ConversationRef } from '../../chat/conversation-ref.js';
import type { Presence } from '../../chat/presence.js';
import type { Logger } from '../../logger.js';
import { RunFencedError } from '../../runs/run-fence.js';

/**
 * How one execution of a run leaves its thread's session: parked on a person (`waiting`), ended (`idle`), or
 * `left` as it is because this process no longer runs it — shutting down (the run stays `running` and the next
 * start recovers it) or taken over (its new owner shows its own state).
 */
export type SessionEnd = 'waiting' | 'idle' | 'left';

/** The thread's session following one execution of a run: working from its start, waiting while it waits for a person. */
export interface RunSession {
  /** The run starts (or resumes) executing here: the session shows it working, titled and owned on creation. */
  started(): void;
  /** Each step: a step that waits for a person (an MCP question, a sign-in, an approval, ask_user) suspends the session, the next working step resumes it. */
  readonly activity: ActivityReport;
  /** The execution is over here: see SessionEnd. Only the first call counts. */
  ended(how: SessionEnd): void;
}

/** How the execution that produced `outcome` (or threw `error`) leaves the session; `leaving`: this process is shutting down or lost the run. */
export function sessionEndOf(result: { outcome: RunOutcome } | { error: unknown }, leaving: boolean): SessionEnd {
  if ('error' in result) return result.error instanceof RunFencedError ? 'left' : 'idle';
  if (result.outcome.kind === 'waiting') return 'waiting';
  return result.outcome.kind === 'aborted' && leaving ? 'left' : 'idle';
}

/**
 * The session of run's thread through the presence port (status, never content): only changes reach the
 * platform, and a failure is logged, never a reason to fail the run. `start` names the principal and a title,
 * which a platform uses when the session is created by this start (or has no title yet).
 */
export function runSession(
  presence: Pick<Presence, 'setSession'>,
  ref: ConversationRef,
  start: { principalUserId: string | null; title: string | null },
  logger: Logger,
): RunSession {
  let shown: SessionState | null = null;
  let over = false;
  const show = (update: SessionUpdate) => {
    if (shown === update.state) return;
    shown = update.state;
    void presence
      .setSession(ref, update)
      .catch((err: unknown) => logger.warn({ err }, 'showing the session of the thread failed'));
  };
  return {
    started() {
      show({
        state: 'working',
        ...(start.principalUserId ? { principalUserId: start.principalUserId } : {}),
        ...(start.title ? { title: start.title } : {}),
      });
    },
    activity(a) {
      if (!over) show({ state: a.activity === 'waiting' ? 'waiting' : 'working' });
    },
    ended(how) {
      if (over) return;
      over = true;
      if (how !== 'left') show({ state: how });
    },
  };
}
