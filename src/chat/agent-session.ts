import type { ConversationRef } from './conversation-ref.js';

/**
 * Where the work in a thread stands, as a platform with agent sessions shows it (Slack's Agent Sessions:
 * `processing`, `suspended`, `active`): a run is working, a run waits for a person (a question, an approval,
 * a sign-in, an MCP question), or nothing runs and the thread stays open for follow-ups. A state, never content:
 * what the run does stays in the working status and the task cards.
 */
export type SessionState = 'working' | 'waiting' | 'idle';

/** What the core tells a thread's session. */
export interface SessionUpdate {
  readonly state: SessionState;
  /**
   * The person the run acts for (its principal), named when a run starts: a platform that creates the session
   * then records who started it. Absent: not known, or not a start.
   */
  readonly principalUserId?: string;
  /** A short title from the request that started the run, for a session created now or one that has no title yet. */
  readonly title?: string;
}

/**
 * Sessions of the platform's threads (Slack's Agent Sessions). Status, never content, like the working
 * indicator: best effort, returns at once, never throws for a platform's refusal (a workspace where the app is
 * no agent keeps working as without sessions).
 */
export interface SessionCapability {
  setSession(conversation: ConversationRef, update: SessionUpdate): Promise<void>;
}

/**
 * A person pressed the platform's own Stop on a thread's session (Slack's `agent_session_stopped`): the
 * thread's run stops as with `/stop` there, if this person may stop it.
 */
export interface SessionStop {
  /** The thread whose session was stopped. */
  readonly conversation: ConversationRef;
  readonly userId: string;
  /** The platform's id of this stop (Slack: the event's `event_ts`), so a redelivery stops nothing twice. */
  readonly eventId: string;
  readonly roles?: readonly string[];
  readonly direct?: boolean;
}
