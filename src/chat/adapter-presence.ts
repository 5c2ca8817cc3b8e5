import type { SessionCapability } from './agent-session.js';
import type { AnswerStream, AnswerStreamHooks } from './answer-stream.js';
import type { ConversationRef } from './conversation-ref.js';
import type { WorkingStatus } from './working-status.js';

/**
 * The status an adapter shows, held only by the presence port over the adapters
 * (src/chat/presence-over-adapters.ts), which the runtime holds in turn: the working indicator, live
 * previews of an answer, a thread's session state. All of it is fine to lose; none of it is content.
 */
export interface AdapterPresence {
  /** Platform name, the first part of every ConversationRef it produces. */
  readonly platform: string;
  readonly capabilities: PresenceCapabilities;
  /** Shows (status) or clears (null) the working indicator; returns at once, never delays a reply. */
  setWorking(conversation: ConversationRef, status: WorkingStatus | null): Promise<void>;
}

/** What only some platforms show, each present only where the platform has it. */
export interface PresenceCapabilities {
  /** Live previews of an answer as the model writes it. Absent: answers are posted whole. */
  readonly stream?: StreamCapability;
  /** Sessions of the platform's threads, with the platform's own Stop (Slack's Agent Sessions). */
  readonly session?: SessionCapability;
}

export interface StreamCapability {
  /**
   * Opens a live preview of an answer (nothing is shown before the first `append`); `recipientUserId`
   * is the person the answer is for (Slack streams to a recipient); `hooks` hear of each message before it is posted.
   * The preview rolls over into a new message where the adapter's `render` splits the text.
   */
  open(conversation: ConversationRef, recipientUserId: string | null, hooks?: AnswerStreamHooks): AnswerStream;
}
