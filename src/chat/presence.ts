import type { SessionUpdate } from './agent-session.js';
import type { AnswerStream, AnswerStreamHooks, WorkingStatus } from './chat-adapter.js';
import type { ConversationRef } from './conversation-ref.js';

/**
 * The one way the core shows status on a platform: the working indicator (reaction, typing, the working
 * note, Slack's status line with its Stop button) and live previews of answers being written. Everything
 * here is ephemeral state that is fine to lose: a restart shows the status again or posts the answer
 * anew. Content — posts, edits, deletions, notices only one person sees — leaves by the other route, the
 * outbox (src/outbox/), the only holder of an adapter's delivery. The runtime holds this port and never an
 * adapter, so the compiler keeps these two the only ways out.
 */
export interface Presence {
  /** Shows (status) or clears (null) a run's working status in the conversation; never delays a reply. */
  setWorking(conversation: ConversationRef, status: WorkingStatus | null): Promise<void>;
  /** Whether answers in this conversation can be previewed live (its platform streams). */
  canStream(conversation: ConversationRef): boolean;
  /**
   * Opens a live preview of an answer (nothing shows before the first `append`); null where `canStream`
   * is false. `recipientUserId` is the person the answer is for; `hooks` hear of each message before it
   * is posted, so the outbox records it first (see `AnswerStreamHooks`).
   */
  openStream(
    conversation: ConversationRef,
    recipientUserId: string | null,
    hooks: AnswerStreamHooks,
  ): AnswerStream | null;
  /**
   * Tells the thread's session where its work stands (Slack's Agent Sessions: working = `processing`, waiting
   * for a person = `suspended`, idle = `active`); nothing where the platform has no sessions. Best effort.
   */
  setSession(conversation: ConversationRef, update: SessionUpdate): Promise<void>;
  /**
   * Whether people besides the one talking to the bot read the conversation (a channel, its threads, a group DM; not
   * a 1:1 DM): where they do, an answer built on one person's private material waits for their consent. Absent, or a
   * platform that cannot tell: they do.
   */
  othersRead?(conversation: ConversationRef): boolean;
}
