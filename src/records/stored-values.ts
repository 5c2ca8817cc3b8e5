/**
 * The values Errand records in its JSON and text columns: transcript entries, the question a run is
 * parked on, why a post was made. They sit below the database schema, which stores them, and below
 * the agent, which makes them, so neither has to import the other for its vocabulary.
 */

export type MessageRole = 'system' | 'user' | 'assistant' | 'tool';

/** A tool call as the model produced it, stored with the assistant message. */
export interface StoredToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** A tool call waiting for a person's approval, and the calls of the same step that come after it. */
export interface PendingApproval {
  /** The model-facing tool name (`<server>__<tool>`). */
  tool: string;
  call: StoredToolCall;
  remaining: StoredToolCall[];
  /** A task_complete summary given earlier in the same step, applied once the step finishes. */
  completeSummary: string | null;
}

/**
 * A tool call of an `auth: "oauth"` MCP server waiting until the run's principal connects their account there
 * (DESIGN.md "Signing in to MCP servers"), and the calls of the same step that come after it.
 */
export interface PendingSignIn {
  /** The MCP server's name in the configuration. */
  server: string;
  call: StoredToolCall;
  remaining: StoredToolCall[];
  /** A task_complete summary given earlier in the same step, applied once the step finishes. */
  completeSummary: string | null;
}

/**
 * A tool call whose MCP server asked the run's principal a question (elicitation) when the call died with its
 * process: the run waits on the question (its row in `elicitations`, by `id`) instead, and the call is made again
 * once it is answered, the stored answer given to the server's repeated question.
 */
export interface PendingElicitation {
  /** The question's id (its row, and its buttons). */
  id: string;
  /** The MCP server's name in the configuration. */
  server: string;
  call: StoredToolCall;
  remaining: StoredToolCall[];
  /** A task_complete summary given earlier in the same step, applied once the step finishes. */
  completeSummary: string | null;
}

/** How a sign-in a run waits on ended, as the callback records it (`answer.text` with source `sign_in`). */
export type SignInEnd = 'connected' | 'denied' | 'failed';

/** The question a `waiting_user` run is parked on. */
export interface PendingQuestion {
  /**
   * Names this question among the run's questions (see question-identity.ts); its buttons carry it,
   * so a click answers only the question its message belongs to. Absent on questions parked before
   * questions had one: their buttons are refused and the answer is typed.
   */
  id?: string;
  /** Set when the run waits for a tool approval rather than an ask_user answer. */
  approval?: PendingApproval;
  /** Set when the run waits for its principal to connect an MCP server (answered by the OAuth callback). */
  signIn?: PendingSignIn;
  /** Set when the run waits for its principal to answer an MCP server's question carried over a restart (answered from any process). */
  elicitation?: PendingElicitation;
  question: string;
  options: string[];
  toolCallId: string;
  askedAt: number;
  /** Platform id of the posted question (buttons live on it). */
  messageId: string | null;
  /** The user to mention and whose answer is expected. */
  userId: string | null;
  /** An answer that arrived while no run slot was free (or during shutdown): applied when the run resumes. */
  answer?: {
    text: string | null;
    userId: string | null;
    source: 'click' | 'typed' | 'timeout' | 'sign_in' | 'elicitation';
  };
}

/**
 * An image a person attached, as the model receives it: `url` is a `data:` URL (base64), so the
 * transcript holds the bytes themselves and a restart or an expired platform link loses nothing.
 */
export interface ImagePart {
  /** The file name, for logs and the text beside it. */
  name: string;
  url: string;
}

/** Why the bot posts a message: its answer text, a send_update, a question or approval it waits on, or a note about the run. */
export type PostPurpose = 'answer' | 'update' | 'question' | 'approval' | 'note';
