import type { SessionState } from '../../chat/agent-session.js';
import type { Presence } from '../../chat/presence.js';
import type { ConversationStore } from '../../conversations/conversation-store.js';
import type { Logger } from '../../logger.js';

/** What showing a conversation's thread session from outside a run needs. */
export interface SessionShowDeps {
  presence: Pick<Presence, 'setSession'>;
  conversations: Pick<ConversationStore, 'refOf'>;
  logger: Logger;
}

/**
 * Shows the thread session of a conversation in `state` where no execution of its run does (a run stopped while
 * no process executes it, a run recovered after its process died, a Stop with nothing to stop). Best effort:
 * returns at once, failures are logged.
 */
export function showSession(deps: SessionShowDeps, conversationId: string, state: SessionState): void {
  const ref = deps.conversations.refOf(conversationId);
  if (!ref) return;
  void deps.presence
    .setSession(ref, { state })
    .catch((err: unknown) =>
      deps.logger.warn({ err, conversationId, state }, 'showing the session of the thread failed'),
    );
}
